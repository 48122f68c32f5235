/* libwork.h - the uselib stand-in's library interface. */
#ifndef LIBWORK_H
#define LIBWORK_H
double work_mix(const double *v, long n, long reps);
#endif
