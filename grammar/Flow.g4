grammar Flow;
program : EOF ;
