/** Types for the MIME helper libraries (mailparser's own: libmime, libbase64, libqp), which ship none. */
declare module 'libmime' {
  const libmime: {
    /** RFC 2047 encoded words decoded (to a JS string). */
    decodeWords(str: string): string;
    /** A structured value and its parameters (RFC 2231 continuations and charsets decoded; names lower case). */
    parseHeaderValue(str: string): { value: string; params: Record<string, string> };
  };
  export default libmime;
}

declare module 'libbase64' {
  const libbase64: {
    encode(buffer: Buffer | string): string;
    decode(str: string): Buffer;
    wrap(str: string, lineLength?: number): string;
  };
  export default libbase64;
}

declare module 'libqp' {
  const libqp: {
    encode(buffer: Buffer | string): string;
    decode(str: string): Buffer;
    wrap(str: string, lineLength?: number): string;
  };
  export default libqp;
}
