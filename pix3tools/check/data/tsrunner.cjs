// pix3net's type-check runner: `node tsrunner.cjs <typescript package dir> <tsconfig path>`.
// Loads that TypeScript, builds the program of the config (noEmit forced), and prints one JSON
// object: the compiler version, the root files and every pre-emit diagnostic, flattened the
// way tsc prints chained messages. Exit 0 whenever it could report.
"use strict";
const path = require("path");
const [tsDir, configPath] = process.argv.slice(2);
const ts = require(path.join(tsDir, "lib", "typescript.js"));
const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };
const out = { version: ts.version, files: [], diagnostics: [] };
const push = (d) => {
  const item = { code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, "\n") };
  if (d.file) {
    item.file = d.file.fileName;
    if (d.start !== undefined) {
      const at = d.file.getLineAndCharacterOfPosition(d.start);
      item.line = at.line + 1;
      item.column = at.character + 1;
    }
  }
  out.diagnostics.push(item);
};
let unrecoverable = [];
host.onUnRecoverableConfigFileDiagnostic = (d) => unrecoverable.push(d);
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, { noEmit: true }, host);
if (!parsed) {
  unrecoverable.forEach(push);
} else {
  out.files = parsed.fileNames;
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, configFileParsingDiagnostics: parsed.errors });
  ts.getPreEmitDiagnostics(program).forEach(push);
}
process.stdout.write(JSON.stringify(out));
