/** Why an operation of an OpenAPI document cannot be a tool. Pure: no Nest import. */
export class OperationError extends Error {
  constructor(
    /** The definition field it concerns. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
