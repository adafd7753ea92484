/**
 * How many threads a model library may use inside one embedding worker. The pool's workers already run in parallel,
 * one batch each; a library that also sizes its own thread pool from all the cores (ONNX Runtime does, and
 * TensorFlow.js's threaded WASM build would) makes N workers ask for N x cores threads, which then fight over the
 * cores instead of adding throughput. So the cores are shared out: max(1, floor(cores / workers)), one thread each
 * once the workers fill the cores.
 */
export function threadsPerWorker(cores: number, workers: number): number {
  const c = Math.max(1, Math.floor(cores));
  const w = Math.max(1, Math.floor(workers));
  return Math.max(1, Math.floor(c / w));
}
