// The part of whatwg-url's low-level API that absolutize uses (https://github.com/jsdom/whatwg-url#low-level-url-standard-api).
// NOTE: written here because @types/whatwg-url does not describe the `encoding` option of parseURL.
declare module 'whatwg-url' {
  interface URLRecord {
    scheme: string;
  }
  function parseURL(input: string, options?: { readonly baseURL?: URLRecord; readonly encoding?: string }): URLRecord | null;
  function serializeURL(url: URLRecord, excludeFragment?: boolean): string;
  const whatwgUrl: { parseURL: typeof parseURL; serializeURL: typeof serializeURL };
  export default whatwgUrl;
}
