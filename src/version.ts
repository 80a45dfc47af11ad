/** The engine's version, as package.json says it: Swagger's and the exported spans' `service.version`. */
export const ENGINE_VERSION = '0.1.0';
