/* The snapshot module's internals shared between its files: the recording format's byte order and
 * checksums (recording.c). */
#ifndef ORRI_SNAPSHOT_INTERNAL_H
#define ORRI_SNAPSHOT_INTERNAL_H

#include <orrery/snapshot.h>

#endif
