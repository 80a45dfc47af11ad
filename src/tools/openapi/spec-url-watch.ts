import { Polling } from '../file-watch.js';
import { specDigest, type SpecRead, type SpecValidators, type SpecVersion } from './spec-source.js';

/**
 * Reads the documents at the URLs the tools in use were made from every `intervalMs` (one check
 * at a time) and calls `onChange` when one reads differently from the version its tools were
 * made from (`docs()`: what the loading read, so a release published while the tools were being
 * loaded is not missed). Each is asked for with the validators of its last read, so that an
 * unchanged one costs a 304. One whose tools are pending (their document could not be read) is
 * left to their own tries; one that cannot be read changes nothing: the service publishing it
 * may be restarting, and the operation it described goes on being offered. A version the tools
 * could not be made from (`onChange` kept the tools in use) is not reported again: only the next
 * one is.
 */
export class SpecUrlWatch extends Polling {
  /** Each URL's document as this watch last read it. */
  private readonly seen = new Map<string, SpecVersion>();
  /** Each URL's digest last reported as a change. */
  private readonly reported = new Map<string, string>();

  /** `read` asks for the document unless it is still the one `validators` identify. */
  constructor(
    private readonly docs: () => ReadonlyMap<string, SpecVersion | undefined>,
    intervalMs: number,
    private readonly read: (url: string, validators?: SpecValidators) => Promise<SpecRead>,
    private readonly onChange: () => Promise<void>,
  ) {
    super(intervalMs);
  }

  protected async compare(): Promise<void> {
    const docs = new Map([...this.docs()].filter(([, inUse]) => inUse !== undefined));
    for (const map of [this.seen, this.reported])
      for (const url of map.keys()) if (!docs.has(url)) map.delete(url);
    const digests = await Promise.all(
      [...docs].map(
        async ([url, inUse]) => [url, inUse!, await this.digestAt(url, inUse!)] as const,
      ),
    );
    // A document back to the version in use may go wrong the same way again: reported again then.
    for (const [url, inUse, digest] of digests)
      if (digest === inUse.digest) this.reported.delete(url);
    const changed = digests.filter(
      ([url, inUse, digest]) =>
        digest !== undefined && digest !== inUse.digest && digest !== this.reported.get(url),
    );
    if (changed.length === 0) return;
    for (const [url, , digest] of changed) this.reported.set(url, digest!);
    await this.onChange();
  }

  /** The digest of the document at `url` now; undefined when it cannot be read. */
  private async digestAt(url: string, inUse: SpecVersion): Promise<string | undefined> {
    const last = this.seen.get(url) ?? inUse;
    try {
      const read = await this.read(url, last.validators);
      if ('unchanged' in read) return last.digest;
      const version = { digest: specDigest(read.text), validators: read.validators };
      this.seen.set(url, version);
      return version.digest;
    } catch {
      return undefined;
    }
  }
}
