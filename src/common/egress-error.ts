/** The error of the egress proxy (see egress.ts), apart so that pure modules can name it. */

/**
 * The egress proxy could not be reached, or refused a tunnel (a denied host, missing
 * credentials): said as it is, never as the server's failure.
 */
export class EgressProxyError extends Error {
  constructor(
    message: string,
    /** The proxy could not be reached at all (a retry may find it); false for its refusal. */
    readonly unreachable = false,
  ) {
    super(message);
  }
}
