/** What the engine uses of swagger2openapi (CommonJS, without types of its own). */
declare module 'swagger2openapi' {
  const converter: {
    convertObj(
      swagger: unknown,
      options: { patch?: boolean; warnOnly?: boolean },
    ): Promise<{ openapi: unknown }>;
  };
  export default converter;
}
