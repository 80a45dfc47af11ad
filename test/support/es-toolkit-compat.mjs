// `es-toolkit/compat` as the engine's dependencies use it (@nestjs/swagger, @nestjs/config), for
// jest only (jest.config.cjs maps the package here): the package's entry loads all of its ~430
// modules, a third of the modules an engine loads, anew for each spec file (0.2–0.5 s a file).
// These are the same functions, from the package's own files. A dependency that comes to import
// another fails to link, naming it: add it here from `node_modules/es-toolkit/dist/compat/index.mjs`.
export { assign } from '../../node_modules/es-toolkit/dist/compat/object/assign.mjs';
export { clone } from '../../node_modules/es-toolkit/dist/compat/object/clone.mjs';
export { cloneDeep } from '../../node_modules/es-toolkit/dist/compat/object/cloneDeep.mjs';
export { compact } from '../../node_modules/es-toolkit/dist/compat/array/compact.mjs';
export { find } from '../../node_modules/es-toolkit/dist/compat/array/find.mjs';
export { flatMap } from '../../node_modules/es-toolkit/dist/compat/array/flatMap.mjs';
export { flatten } from '../../node_modules/es-toolkit/dist/compat/array/flatten.mjs';
export { get } from '../../node_modules/es-toolkit/dist/compat/object/get.mjs';
export { groupBy } from '../../node_modules/es-toolkit/dist/compat/array/groupBy.mjs';
export { head } from '../../node_modules/es-toolkit/dist/compat/array/head.mjs';
export { identity } from '../../node_modules/es-toolkit/dist/compat/function/identity.mjs';
export { isArray } from '../../node_modules/es-toolkit/dist/compat/predicate/isArray.mjs';
export { isEmpty } from '../../node_modules/es-toolkit/dist/compat/predicate/isEmpty.mjs';
export { isEqual } from '../../node_modules/es-toolkit/dist/predicate/isEqual.mjs';
export { isFunction } from '../../node_modules/es-toolkit/dist/compat/predicate/isFunction.mjs';
export { isNil } from '../../node_modules/es-toolkit/dist/compat/predicate/isNil.mjs';
export { isString } from '../../node_modules/es-toolkit/dist/compat/predicate/isString.mjs';
export { isUndefined } from '../../node_modules/es-toolkit/dist/compat/predicate/isUndefined.mjs';
export { keyBy } from '../../node_modules/es-toolkit/dist/compat/array/keyBy.mjs';
export { map } from '../../node_modules/es-toolkit/dist/compat/array/map.mjs';
export { mapValues } from '../../node_modules/es-toolkit/dist/compat/object/mapValues.mjs';
export { negate } from '../../node_modules/es-toolkit/dist/compat/function/negate.mjs';
export { omit } from '../../node_modules/es-toolkit/dist/compat/object/omit.mjs';
export { omitBy } from '../../node_modules/es-toolkit/dist/compat/object/omitBy.mjs';
export { pick } from '../../node_modules/es-toolkit/dist/compat/object/pick.mjs';
export { pickBy } from '../../node_modules/es-toolkit/dist/compat/object/pickBy.mjs';
export { some } from '../../node_modules/es-toolkit/dist/compat/array/some.mjs';
export { unionWith } from '../../node_modules/es-toolkit/dist/compat/array/unionWith.mjs';
export { uniq } from '../../node_modules/es-toolkit/dist/compat/array/uniq.mjs';
