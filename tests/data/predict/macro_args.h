/* macro_args.h - the hint of macro_args.c's queues, in a header it includes. */
#define Q_EMPTY(q) unlikely((q)->head == (q)->tail) /* MACRO-DEF */
