/* The table of targets the commands offer.  A new target is a folder that
 * defines a Target (coil.h) and one row here. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "triton/triton.h"

static const Target *const targets[] = {&cpu_target, &triton_npu_target, &triton_gpu_target};

const Target *target_find(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (!strcmp(targets[i]->name, name)) return targets[i];
  return NULL;
}

const char *target_names(void) {
  static char names[256];
  if (!names[0])
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", targets[i]->name);
  return names;
}
