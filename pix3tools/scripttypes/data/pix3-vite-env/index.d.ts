// What Vite adds to `import.meta` in a project's modules (the scripts run under Vite in the
// editor and the game). Loaded for every script through typeRoots.
interface ImportMeta {
  readonly env: Record<string, any>;
  readonly hot?: any;
  glob(pattern: string | string[], options?: Record<string, any>): Record<string, any>;
}
