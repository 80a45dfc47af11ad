/**
 * What the engine uses of npm `@echogarden/speex-resampler-wasm`'s SIMD build (Emscripten; the
 * package ships no types). WebAssembly SIMD runs on every platform Node 20 does.
 */
declare module '@echogarden/speex-resampler-wasm/simd' {
  export interface SpeexModule {
    HEAP16: Int16Array;
    HEAP32: Int32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    /** A resampler's state (0 if it could not start, the error code at `error`). */
    _speex_resampler_init(
      channels: number,
      inRate: number,
      outRate: number,
      quality: number,
      error: number,
    ): number;
    /** Reads up to `*inLength` samples, writes up to `*outLength`; both set to what it did. 0: done. */
    _speex_resampler_process_int(
      state: number,
      channel: number,
      input: number,
      inLength: number,
      output: number,
      outLength: number,
    ): number;
    _speex_resampler_destroy(state: number): void;
  }
  const load: () => Promise<SpeexModule>;
  export default load;
}
