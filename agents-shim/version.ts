/** The agents shim's version: written into every installed shim so `shim install` can tell old from new. */
export const VERSION = "0.1.0";
