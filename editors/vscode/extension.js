// The Flow extension's code: starts `flowc lsp` (the language server in flowc) for .flow
// files, so that VS Code shows flowc's diagnostics as you type, hover (types, the plan of
// a line), go to definition, completion and formatting. docs/editors.md says how to
// install it; the setting flow.flowc names flowc if it is not on PATH.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const flowc = vscode.workspace.getConfiguration("flow").get("flowc") || "flowc";
  const server = { command: flowc, args: ["lsp"] };
  client = new LanguageClient("flow", "Flow (flowc lsp)", { run: server, debug: server }, {
    documentSelector: [{ scheme: "file", language: "flow" }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
