/* The table of targets the API and the commands offer.  A new target is a
 * folder that defines a Target (coil.h) and one row here. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "cpu/cpu.h"
#include "triton/triton.h"

static const Target *const targets[] = {&cpu_target, &triton_npu_target, &triton_gpu_target};

const Target *target_find(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (!strcmp(targets[i]->name, name)) return targets[i];
  return NULL;
}

/* Built once: the API may ask from several threads at once. */
static char names[256];
static void build_names(void) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", targets[i]->name);
}

const char *target_names(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_names);
  return names;
}
