import { Global, Module } from '@nestjs/common';
import { ClusterLink } from './cluster-link.js';

/** This process's line to the cluster primary (a no-op outside a cluster). */
@Global()
@Module({
  providers: [{ provide: ClusterLink, useFactory: () => new ClusterLink() }],
  exports: [ClusterLink],
})
export class ClusterModule {}
