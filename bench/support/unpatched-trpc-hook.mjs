/**
 * A module-loader hook for `bench/trpc-overhead.ts`: serves one file of `@trpc/server` as it was before
 * `patches/@trpc+server+11.25.2.patch`, so the same checkout runs with and without the patch. Plain
 * JavaScript because it runs on Node's loader thread, outside tsx.
 */
let target;
let source;
let port;

export async function initialize(data) {
  ({ target, source, port } = data);
}

export async function load(url, context, nextLoad) {
  if (url.endsWith(target)) {
    port.postMessage(url);
    return { format: 'module', source, shortCircuit: true };
  }
  return nextLoad(url, context);
}
