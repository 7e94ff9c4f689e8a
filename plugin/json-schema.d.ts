// `@ai-sdk/provider`'s declarations import JSON Schema types from `json-schema`, which ships no
// declarations; these stand in for `@types/json-schema` in type checks that include libraries.
declare module 'json-schema' {
  export type JSONSchema7Definition = JSONSchema7 | boolean
  export interface JSONSchema7 {
    [keyword: string]: unknown
  }
}
