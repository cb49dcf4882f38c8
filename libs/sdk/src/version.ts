/**
 * The package's own version and the LunaNexa contract generation it speaks.
 * A gateway or API of another contract generation may refuse or misread what
 * this SDK sends; test/sdk-generated.spec.ts keeps both equal to their sources
 * (package.json and libs/contracts).
 */
export const SDK_VERSION = '0.2.0';
export const CONTRACT_VERSION = 'v1';
