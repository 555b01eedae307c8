" Flow scripts (flowc): *.flow
autocmd BufNewFile,BufRead *.flow setfiletype flow
