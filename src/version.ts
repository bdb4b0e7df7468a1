// Written by scripts/version-module.mjs from package.json's version: edit package.json, not this file.

/** Gyre's version, as package.json gives it. */
export const GYRE_VERSION = "0.1.0";
