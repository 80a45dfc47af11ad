/**
 * An address whose connections are refused, for a server that is down: port 1, where nothing
 * listens and which no server of the suite can be given (`listen(0)` takes ports of the ephemeral
 * range). A port freed after a probe is not one: a test file running beside may listen on it.
 */
export const REFUSED_ORIGIN = 'http://127.0.0.1:1';
