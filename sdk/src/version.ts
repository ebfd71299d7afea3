/** Sent in the User-Agent; kept equal to package.json's version by a test. */
export const SDK_VERSION = '1.0.0'
