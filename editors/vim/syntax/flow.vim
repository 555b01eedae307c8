" Vim syntax file
" Language:    Flow (.flow scripts compiled by flowc; docs/language.md, grammar/Flow.g4)
" Maintainer:  the Flow project (editors/vim in its repository)
" Tested by:   test/editors/vim.test (editors/vim/tests/*.flow)

if exists("b:current_syntax")
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

syn case match

" Strings: one line, escapes \n \t \" \\, `{expr}` interpolation, `{{` and `}}` literal braces.
syn region  flowString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=flowEscape,flowBadEscape,flowBraceEscape,flowInterpolation,@Spell
syn match   flowBadEscape contained "\\."
syn match   flowEscape contained "\\[nt\"\\]"
syn match   flowBraceEscape contained "{{\|}}"
syn region  flowInterpolation contained matchgroup=flowInterpolationDelim start="{\ze[^{]" end="}" end=+\ze"+ contains=@flowExpr
syn region  flowSingleQuoted start=+'+ skip=+\\\\\|\\'+ end=+'+ end=+$+

" Numbers: 42, 1_000, 0xFF_FF, 0.5, 4e9, 1.5e-3; sizes 256MiB, 256 MiB, 1.5 GiB (bytes).
" A number run into letters (12abc, 0x, 1.5.3, 8 Bytes) is one bad token, as in flowc's lexer.
" Of two items that start at one column Vim takes the one defined last: the general bad
" number first, the forms that are valid (they refuse to run into letters) after it.
syn match   flowBadNumber "\<\d[0-9A-Za-z_.]*"
syn match   flowNumber    "\<\d[0-9_]*\%([0-9A-Za-z_.]\)\@!"
syn match   flowNumber    "\<0[xX][0-9A-Fa-f_]\+\%([0-9A-Za-z_.]\)\@!"
syn match   flowFloat     "\<\d[0-9_]*\%(\.\d[0-9_]*\%([eE][+-]\=\d\+\)\=\|[eE][+-]\=\d\+\)\%([0-9A-Za-z_.]\)\@!"
syn match   flowSize      "\<\d[0-9_]*\%(\.\d[0-9_]*\)\=[ \t]*\%(B\|KiB\|MiB\|GiB\|TiB\)\%([0-9A-Za-z_]\)\@!" contains=flowUnit
syn match   flowBadNumber "\<\d[0-9_]*\%(\.\d[0-9_]*\)\=[ \t]*\%(B\|KiB\|MiB\|GiB\|TiB\)[0-9A-Za-z_]\+"
syn match   flowUnit      contained "\%(B\|KiB\|MiB\|GiB\|TiB\)\%([0-9A-Za-z_]\)\@!"

" Keywords (Flow.g4's reserved words): matches, not `syn keyword`, so that the field
" names below, defined later, win over them.
syn match   flowConditional "\<\%(if\|else\)\>"
syn match   flowRepeat "\<\%(while\|for\|in\|break\|continue\)\>"
syn match   flowStatement "\<\%(return\|emit\)\>"
syn match   flowInclude "\<\%(import\|use\)\>"
syn match   flowStorage "\<\%(let\|var\|param\|record\|order\|fn\|stream\|vector\|pq\|array\|memory\|block\)\>"
syn match   flowSource "\<\%(generate\|range\|read\|read_text\|scan\|merge\|join\|left_join\|zip\|concat\)\>"
syn match   flowStage "\<\%(map\|filter\|sort\|unique\|take\|reduce\)\>"
syn match   flowStage       "\<end\>\ze\s*{"
syn match   flowStage       "\<for\>\ze\s\+\h\w*\s*\%({\|$\)"
syn match   flowSink "\<\%(print\|write\|write_text\)\>"
syn match   flowKeyword "\<\%(by\|with\|to\|on\|as\|asc\|desc\)\>"
syn match   flowBoolean "\<\%(true\|false\)\>"
syn match   flowType "\<\%(bool\|u8\|u16\|u32\|u64\|i8\|i16\|i32\|i64\|f32\|f64\|path\)\>"
syn match   flowBuiltin     "\<\%(min\|max\|abs\|hash\|rand\|bor\|count\|sum\)\ze\s*("
syn match   flowCppNamespace "\<cpp\ze\s*::"

" Declared names.
syn match   flowRecordName   "\%(\<record\s\+\)\@<=\h\w*"
syn match   flowOrderName    "\%(\<order\s\+\)\@<=\h\w*\ze\s\+on\>"
syn match   flowFunctionName "\%(\<fn\s\+\)\@<=\h\w*"

" After `.` (e.sort) and before `:` in records (Msg { to: 3 }) any word is a field name,
" keywords too: these come after the keywords, so they win where they match.
syn match   flowMethod  "\.\s*\zs\%(push\|top\|pop\|back\|empty\|size\|clear\|fill\)\ze\s*("
syn match   flowField   "\.\s*\zs\h\w*\>\%(\s*(\)\@!"
syn match   flowField   "\<\h\w*\ze\s*:\%(:\)\@!"
syn match   flowDeclName "\%(\<\%(let\|var\|param\|stream\|vector\|pq\|array\)\s\+\)\@<=\h\w*"

" Operators: `|` between stages, `~` estimates (after a value) and bitwise not, `=>` lambdas.
syn match   flowOperator  "[-+*/%&^!<>=]\|&&\|||\|<<\|>>"
syn match   flowPipe      "|"
syn match   flowOperator  "||"
syn match   flowOperator  "\~"
syn match   flowEstimate  "\%([0-9A-Za-z_)\]}]\s*\)\@<=\~"
syn match   flowArrow     "=>\|->"
syn match   flowNamespaceSep "::"

syn cluster flowExpr contains=flowLineComment,flowBlockComment,flowBadNumber,flowNumber,flowFloat,flowSize,flowConditional,flowRepeat,flowStatement,flowStorage,flowSource,flowStage,flowSink,flowKeyword,flowBoolean,flowType,flowBuiltin,flowCppNamespace,flowMethod,flowField,flowDeclName,flowOperator,flowPipe,flowEstimate,flowArrow,flowNamespaceSep

" Comments: `//` to the end of the line, `/* */` (no nesting). Defined after the operators:
" of two items that start at one column Vim takes the one defined last, so `//` is no division.
syn keyword flowTodo contained TODO FIXME XXX NOTE
syn match   flowLineComment "//.*$" contains=flowTodo,@Spell
syn region  flowBlockComment start="/\*" end="\*/" contains=flowTodo,@Spell

syn sync minlines=50

hi def link flowTodo               Todo
hi def link flowLineComment        Comment
hi def link flowBlockComment       Comment
hi def link flowString             String
hi def link flowSingleQuoted       Error
hi def link flowEscape             SpecialChar
hi def link flowBraceEscape        SpecialChar
hi def link flowBadEscape          Error
hi def link flowInterpolationDelim Delimiter
hi def link flowNumber             Number
hi def link flowFloat              Float
hi def link flowSize               Number
hi def link flowUnit               Type
hi def link flowBadNumber          Error
hi def link flowConditional        Conditional
hi def link flowRepeat             Repeat
hi def link flowStatement          Statement
hi def link flowInclude            Include
hi def link flowStorage            StorageClass
hi def link flowSource             Keyword
hi def link flowStage              Keyword
hi def link flowSink               Statement
hi def link flowKeyword            Keyword
hi def link flowBoolean            Boolean
hi def link flowType               Type
hi def link flowBuiltin            Function
hi def link flowCppNamespace       Special
hi def link flowRecordName         Typedef
hi def link flowOrderName          Typedef
hi def link flowFunctionName       Function
hi def link flowMethod             Function
hi def link flowField              Identifier
hi def link flowDeclName           Identifier
hi def link flowOperator           Operator
hi def link flowPipe               Operator
hi def link flowEstimate           Special
hi def link flowArrow              Operator
hi def link flowNamespaceSep       Delimiter

let b:current_syntax = "flow"
let &cpo = s:cpo_save
unlet s:cpo_save
