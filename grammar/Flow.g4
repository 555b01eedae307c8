// The Flow language, v1 (see docs/language.md). ANTLR 4.9, C++ target.
//
// The grammar only builds a tree: no actions, no semantic predicates, so the same file
// could drive any ANTLR target. compiler/parse turns the tree into the AST, and checks
// what a context-free grammar cannot say well (size units, escapes, literal ranges).
grammar Flow;

// ---------------------------------------------------------------------------------------
// Program structure
// ---------------------------------------------------------------------------------------

program : item* EOF ;

// One expression and nothing else: a `{…}` interpolated into a string, a `--set` value.
exprOnly : expr EOF ;

item
    : declaration
    | statement
    ;

declaration
    : 'import' STRING ';'                                         # importDecl
    | 'param' IDENT ':' type '=' expr ';'                         # paramDecl
    | 'memory' size ';'                                           # memoryDecl
    | 'block' size ';'                                            # blockDecl
    | 'record' IDENT '{' (fieldDecl (',' fieldDecl)* ','?)? '}'   # recordDecl
    | 'order' IDENT 'on' type '=' orderSpec ';'                   # orderDecl
    // `fn name<T>(p: T, s: stream<T>) -> stream<T> = pipeline;` or with a block body
    // that ends in `return …;`.
    | 'fn' IDENT typeParams? '(' (fnParam (',' fnParam)*)? ')' ('->' fnType)?
      ('=' pipeline ';' | block)                                  # fnDecl
    // `use std.graph;` or `use "lib/mine.flow" as mine;`
    | 'use' (modulePath | STRING) ('as' IDENT)? ';'               # useDecl
    ;

typeParams : '<' IDENT (',' IDENT)* '>' ;
fnParam : IDENT ':' fnType ;
// A parameter's or result's type: a value type, or a stream, vector, array, order or
// priority queue (pq) of T.
fnType
    : kind=('stream' | 'vector' | 'array' | 'order' | 'pq') '<' type '>'
    | type
    ;
modulePath : IDENT ('.' IDENT)* ;

fieldDecl : fieldName ':' type ;

// `memory 256 MiB;` or `memory 256MiB;`. A bare number means bytes. A word that is not a
// unit (`256 MB`) is accepted here and reported by the AST builder with the units it knows.
size
    : SIZE                       # sizeLiteral
    | number IDENT?              # sizeWithWord
    ;

orderSpec
    : '(' orderKey (',' orderKey)* ','? ')'   # keyOrder
    | qualifiedName                           # cppOrder
    ;

orderKey : expr direction=('asc' | 'desc')? ;

// A queue's order: a declared order, or `asc` / `desc` for scalars.
orderRef
    : 'asc'           # ascOrder
    | 'desc'          # descOrder
    | qualifiedName   # namedOrder
    | name '.' name   # moduleOrder   // graph.by_src
    ;

// ---------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------

type
    : '[' type ';' expr ']'   # arrayType
    | qualifiedName           # namedType      // scalars, records, cpp::ns::T
    | name '.' name           # moduleType     // graph.Edge: a record of a module
    ;

qualifiedName : name ('::' name)* ;

// A name in an expression or type. The short keywords that cannot start anything where a
// name stands may be names too, so records can have fields such as `to` or `in`.
name : IDENT | 'to' | 'on' | 'in' | 'by' | 'with' | 'end' | 'array' ;

// After `.` and before `:` in records any word is a field or method name, keywords too.
fieldName
    : IDENT | 'to' | 'on' | 'in' | 'by' | 'asc' | 'desc' | 'as' | 'order' | 'block' | 'memory'
    | 'map' | 'filter' | 'sort' | 'unique' | 'take' | 'for' | 'generate' | 'range' | 'read'
    | 'read_text' | 'read_lines' | 'read_csv' | 'scan' | 'merge' | 'import' | 'param' | 'record' | 'stream' | 'vector'
    | 'pq' | 'let' | 'var' | 'if' | 'else' | 'while' | 'break' | 'continue' | 'emit' | 'print'
    | 'write' | 'write_text' | 'write_lines' | 'write_csv' | 'true' | 'false' | 'reduce' | 'with' | 'join' | 'left_join' | 'zip'
    | 'concat' | 'end' | 'array' | 'fn' | 'use' | 'return'
    ;

// ---------------------------------------------------------------------------------------
// Pipelines: source | stage | stage ...
// ---------------------------------------------------------------------------------------

pipeline : source ('|' stage)* ;

source
    : 'generate' '(' expr ')' '{' expr '}'                          # generateSource
    | 'range' '(' expr ',' expr ')'                                  # rangeSource
    | 'read' '(' pathRef ')' 'as' type estimate?                     # readSource
    | 'read_text' '(' pathRef ')' 'as' type estimate?                # readTextSource
    | 'read_lines' '(' pathRef ')' estimate?                         # readLinesSource
    | 'read_csv' '(' pathRef (',' csvOption)* ')' 'as' type estimate?  # readCsvSource
    | 'scan' '(' IDENT ')'                                           # scanSource
    | 'merge' '(' pipeline (',' pipeline)* 'by' orderRef ')'         # mergeSource
    | kind=('join' | 'left_join') '(' pipeline 'by' joinKey ',' pipeline 'by' joinKey ')'
      lambda estimate?                                               # joinSource
    | 'zip' '(' pipeline (',' pipeline)* ')' lambda                  # zipSource
    | 'concat' '(' pipeline (',' pipeline)* ')'                      # concatSource
    | expr                                                           # exprSource  // a named stream or vector
    ;

stage
    : 'map' IDENT '=>' expr                      # mapStage
    | 'filter' IDENT '=>' expr estimate?         # filterStage
    | 'sort' ('by' orderRef)?                    # sortStage
    | 'unique' ('(' expr (',' expr)* ')')? estimate?   # uniqueStage
    | 'take' expr                                # takeStage
    | 'for' IDENT block ('end' endBlock=block)? estimate?  # forStage
    | 'reduce' '(' expr (',' expr)* ','? ')' 'with' lambda estimate?   # reduceStage
    // `window 3`, `sample 0.1`, `enumerate`: a stage of the table in ast/builtins.def
    // (STAGE), named by a word; sema reports a word that names none.
    | IDENT expr?                                # namedStage
    ;

// Where a read or write goes: a string literal, or a param of type path (sema checks).
pathRef : STRING | name ;

// `sep: "\t"`, `header: false`, `empty_as_zero: true`: how a CSV file is read or written
// (the AST builder checks the names and values).
csvOption : name ':' value=(STRING | 'true' | 'false') ;

// The key of one side of a join: fields in parentheses, each ascending unless `desc`, or
// an order (`asc` / `desc` for scalars, or a declared order with keys).
joinKey
    : '(' orderKey (',' orderKey)* ','? ')'   # keyListJoinKey
    | orderRef                                # orderJoinKey
    ;

// `(a, b) => expr`: the function of a reduce, join or zip.
lambda : '(' IDENT (',' IDENT)* ')' '=>' expr ;

// `~ 1e9` after a file source or a join is its element count; `~ 0.5` after a filter,
// unique or reduce is the fraction of elements that come out, after a for stage the
// elements it emits per element it takes (any ratio: `~ 0.01`, `~ 3`); `~ 10` after a while
// condition the rounds it is expected to run. A constant expression over params
// (`~ edges / 2`); it only feeds the estimates.
estimate : '~' expr ;

// ---------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------

block : '{' statement* '}' ;

// Streams, vectors and queues may also be declared in a block: they live until it ends.
statement
    : 'stream' IDENT (':' type)? '=' pipeline ';'                # streamDecl
    | 'vector' IDENT (':' type | '=' pipeline) ';'               # vectorDecl
    | 'pq' IDENT ':' type 'order' orderRef ';'                   # pqDecl
    | 'let' IDENT (':' type)? '=' expr ';'                       # letStmt
    | 'var' IDENT (':' type)? '=' expr ';'                       # varStmt
    | ifStatement                                                # ifStmt
    | 'while' expr estimate? block                               # whileStmt
    | 'for' IDENT 'in' pipeline block                            # forInStmt
    | 'break' ';'                                                # breakStmt
    | 'continue' ';'                                             # continueStmt
    | 'emit' expr ';'                                            # emitStmt
    | 'print' STRING ';'                                         # printStmt
    | 'write' pipeline 'to' pathRef ';'                          # writeStmt
    | 'write_text' pipeline 'to' pathRef ';'                     # writeTextStmt
    | 'write_lines' pipeline 'to' pathRef ';'                    # writeLinesStmt
    | 'write_csv' pipeline 'to' pathRef ('with' csvOption (',' csvOption)*)? ';'  # writeCsvStmt
    | expr op=assignOp pipeline ';'                              # assignStmt  // v = pipeline refills a vector
    | expr ';'                                                   # exprStmt
    | block                                                      # blockStmt
    // `array a: T[n];` or `array a: T[n] = value;`: an in-memory array of a length known
    // when the declaration is reached.
    | 'array' IDENT ':' type '[' length=expr ']' ('=' init=expr)? ';'   # arrayStmt
    // The last statement of a function's block body.
    | 'return' pipeline? ';'                                     # returnStmt
    ;

ifStatement : 'if' expr block ('else' (elseIf=ifStatement | elseBlock=block))? ;

assignOp : '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '^=' | '<<=' | '>>=' ;

// ---------------------------------------------------------------------------------------
// Expressions, from the tightest binding to the loosest (as in Rust): postfix, unary,
// `as`, * / %, + -, << >>, &, ^, comparisons, &&, ||. There is no `|` operator: `|`
// always separates pipeline stages; bitwise or is the builtin bor(a, b).
// ---------------------------------------------------------------------------------------

expr
    : primary                                                   # primaryExpr
    | expr '.' fieldName '(' arguments? ')'                     # methodCallExpr
    | expr '.' fieldName                                        # fieldExpr
    | expr '[' expr ']'                                         # indexExpr
    | op=('-' | '!' | '~') expr                                 # unaryExpr
    | expr 'as' type                                            # castExpr
    | expr op=('*' | '/' | '%') expr                            # binaryExpr
    | expr op=('+' | '-') expr                                  # binaryExpr
    | expr op=('<<' | '>>') expr                                # binaryExpr
    | expr op='&' expr                                          # binaryExpr
    | expr op='^' expr                                          # binaryExpr
    | expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr      # binaryExpr
    | expr op='&&' expr                                         # binaryExpr
    | expr op='||' expr                                         # binaryExpr
    ;

primary
    : number                                                     # numberLit
    | SIZE                                                       # sizeLit
    | STRING                                                     # stringLit
    | ('true' | 'false')                                         # boolLit
    | qualifiedName '{' fieldInit (',' fieldInit)* ','? '}'      # recordExpr
    | name '.' name '{' fieldInit (',' fieldInit)* ','? '}'      # moduleRecordExpr // graph.Edge { … }
    | qualifiedName '(' arguments? ')'                           # callExpr
    | qualifiedName                                              # nameExpr
    | '(' expr ')'                                               # parenExpr
    // `[value; count]` or `[a, b, c]`: one alternative, so that the parser decides between
    // them at the token after the first element instead of looking ahead over all of it
    // at every `[` (quadratic in the nesting of `[[[…]]]`).
    | '[' (expr (';' count=expr | (',' expr)* ','?))? ']'       # arrayExpr
    | ifExpr                                                     # ifExprPrimary
    ;

// `if c { a } else if d { b } else { c }` as an expression. The else is required; the
// AST builder reports one that is missing.
ifExpr : 'if' cond=expr '{' then=expr '}' ('else' (elseIf=ifExpr | '{' otherwise=expr '}'))? ;

fieldInit : fieldName ':' expr ;

// A call argument may be a whole pipeline: count(graph | filter e => e.a > 0).
arguments : pipeline (',' pipeline)* ;

number : INT | FLOAT ;

// ---------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------

// A number followed by a unit on the same line is a size (`256MiB`, `256 MiB`, `1.5 GiB`),
// in bytes. A unit run into more letters (`8 Bytes`) is one bad token.
SIZE     : DIGITS ('.' DIGITS)? [ \t]* UNIT ;
BAD_SIZE : DIGITS ('.' DIGITS)? [ \t]* UNIT [A-Za-z0-9_]+ ;
fragment UNIT : 'B' | 'KiB' | 'MiB' | 'GiB' | 'TiB' ;
FLOAT : DIGITS '.' DIGITS EXPONENT? | DIGITS EXPONENT ;
INT   : DIGITS | '0' [xX] [0-9a-fA-F_]+ ;
// A number run into letters (`12abc`, `0x`, `1.5.3`) is one bad token, reported as such.
BAD_NUMBER : [0-9] [0-9a-zA-Z_.]* ;

fragment DIGITS   : [0-9] [0-9_]* ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;

STRING : '"' (ESCAPE | ~["\\\r\n])* '"' ;
UNTERMINATED_STRING : '"' (ESCAPE | ~["\\\r\n])* ;
// 'text' in single quotes: reported once, read as a string.
SINGLE_QUOTED : '\'' (ESCAPE | ~['\\\r\n])* '\''? ;
fragment ESCAPE : '\\' ~[\r\n] ;

IDENT : [A-Za-z_] [A-Za-z0-9_]* ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
// A `/*` with no `*/` before the end of the file.
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF ;
WS : [ \t\r\n]+ -> skip ;

// Anything else is one bad character; the parser reports it by name.
BAD_CHAR : . ;
