export { PRESCAN_BYTES, bomSniff, isAsciiSafeForMarkup, resolveLabel, sniffCssEncoding, sniffEncoding } from './sniff.ts';
export type { CssSniffOptions, EncodingDecision, EncodingSource, SniffOptions, SniffedEncoding } from './sniff.ts';
export { decodeStrict, encodeString } from './codec.ts';
export type { EncodeOptions } from './codec.ts';
export { byteCodec } from './byte-codec.ts';
export { IDENTITY_CODEC, decodeRawText } from './raw-text.ts';
export type { DecodedText, RawCodec } from './raw-text.ts';
