// Placeholder until the plugin lands.
export {};
