/* libcoil's API layer: what the public header (include/coil.h) promises,
 * over the pipeline and the targets, and the table of targets the
 * commands share with it.  The commands sit above this folder; the
 * targets below it. */
#ifndef COIL_API_H
#define COIL_API_H

#include "coil.h"

/* -------------------------------------------------------------- targets.c */

/* Every target, by name; NULL: no such target. */
const Target *target_find(const char *name);
/* "c, triton-npu, triton-gpu", for messages. */
const char *target_names(void);

#endif
