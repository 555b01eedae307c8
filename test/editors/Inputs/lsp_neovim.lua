-- Drives `flowc lsp` from Neovim's own LSP client (headless): opens $SCRIPT, asks for
-- hover, definition and completion, breaks the script to get a diagnostic, formats a
-- messy line, and writes what it got to $OUT, one finding a line (lsp_neovim.test checks).
local out = assert(io.open(os.getenv("OUT"), "w"))
local function say(...) out:write(table.concat({...}, " "), "\n") out:flush() end
local function first_line(s) return (s:gsub("\n.*", "")) end

vim.cmd("edit " .. os.getenv("SCRIPT"))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "flowc", cmd = { os.getenv("FLOWC"), "lsp" }, root_dir = vim.fn.getcwd() })
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)
if not vim.wait(10000, function() return client.initialized end, 20) then say("NO INITIALIZE") vim.cmd("qa!") end
say("SERVER", client.server_capabilities and "capabilities" or "none")

local function request(method, line, character)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = character } }
  local answers = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
  local answer = answers[id]
  return answer and answer.result
end

-- Hover: a stream's type and plan, a record field, a stdlib function's documentation.
local h = request("textDocument/hover", 10, 10)
say("HOVER-STREAM", h and first_line(h.contents.value) or "nil")
say("HOVER-PLAN", h and (h.contents.value:match("\n%- (for p loop[^\n]*)") or "no plan") or "nil")
h = request("textDocument/hover", 11, 16)
say("HOVER-FIELD", h and h.contents.value or "nil")
h = request("textDocument/hover", 3, 28)
say("HOVER-FIELD-DECL", h and h.contents.value or "nil")
h = request("textDocument/hover", 8, 19)
say("HOVER-FN", h and first_line(h.contents.value) or "nil", h and (h.contents.value:match("Per node[^\n]*") or "") or "")

-- Go to definition: a name of the script, and into the standard library.
local d = request("textDocument/definition", 10, 10)
say("DEF-STREAM", d and (d.range.start.line .. ":" .. d.range.start.character) or "nil")
d = request("textDocument/definition", 8, 19)
say("DEF-STDLIB", d and (d.uri:match("[^/]*/[^/]*$") .. ":" .. d.range.start.line) or "nil")

-- The outline: the script's declarations, in order.
local answers = vim.lsp.buf_request_sync(buf, "textDocument/documentSymbol", { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000) or {}
local names = {}
for _, symbol in ipairs((answers[id] or {}).result or {}) do table.insert(names, symbol.name .. "(" .. symbol.detail .. ")") end
say("OUTLINE", table.concat(names, " "))

-- Completion after `p.` while the line is being typed (the script does not check then).
vim.api.nvim_buf_set_lines(buf, 11, 12, false, { "    total += p." })
local items = request("textDocument/completion", 11, 15) or {}
local labels = {}
for _, item in ipairs(items.items or items) do table.insert(labels, item.label) end
table.sort(labels)
say("COMPLETE-FIELDS", table.concat(labels, " "))
vim.api.nvim_buf_set_lines(buf, 11, 12, false, { "    total += p.value;" })
local function diagnostics_on(line)
  for _, diag in ipairs(vim.diagnostic.get(buf)) do if diag.lnum == line then return true end end
  return false
end
vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20)

-- A misspelt name: the diagnostic at its place, with the hint.
vim.api.nvim_buf_set_lines(buf, 13, 14, false, { 'print "total {totl}";' })
vim.wait(10000, function() return diagnostics_on(13) end, 20)
for _, diag in ipairs(vim.diagnostic.get(buf)) do
  say("DIAGNOSTIC", diag.lnum .. ":" .. diag.col, diag.severity == vim.diagnostic.severity.ERROR and "error" or "other", diag.message)
end
vim.api.nvim_buf_set_lines(buf, 13, 14, false, { 'print "total {total}";' })
vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
say("DIAGNOSTICS-AFTER-FIX", #vim.diagnostic.get(buf))

-- Formatting: flowc fmt's layout through the editor.
vim.api.nvim_buf_set_lines(buf, 9, 10, false, { "var   total:u64=0;" })
vim.lsp.buf.formatting_sync(nil, 10000)
say("FORMATTED", vim.api.nvim_buf_get_lines(buf, 9, 10, false)[1])

vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.client_is_stopped(id) end, 20)
say("STOPPED", tostring(vim.lsp.client_is_stopped(id)))
out:close()
vim.cmd("qa!")
