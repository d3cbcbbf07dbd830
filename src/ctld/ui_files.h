/*
 * ui_files: the dashboard's static files (ui/), built into herdctld by
 * scripts/embed-ui.sh so that the controller serves its own page with
 * nothing installed beside it and no Node.js anywhere (docs/dashboard.md).
 */
#ifndef HERD_CTLD_UI_FILES_H
#define HERD_CTLD_UI_FILES_H

#include <stddef.h>

struct ui_file {
    const char *name;          /* "index.html", "app.js", ... */
    const char *type;          /* its Content-Type */
    const unsigned char *data;
    size_t len;
};

extern const struct ui_file ui_files[];
extern const size_t ui_nfiles;

#endif
