/*
 * herd why JOBID: why a job waits, whole: Slurm's reason name as squeue
 * shows it, then the controller's explanation in words (the limit and who
 * holds it, the resources it waits for and when they free up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"

int cmd_herd_why(int argc, char **argv)
{
    if (argc != 2 || !argv[1][0] || strspn(argv[1], "0123456789_") != strlen(argv[1])) {
        fprintf(stderr, "Usage: herd why JOBID\n");
        return 1;
    }
    char path[128], err[256];
    snprintf(path, sizeof path, PATH_JOB("%s"), argv[1]);
    json_t *answer = NULL;
    int status = client_call("herd", "GET", path, NULL, &answer, err, sizeof err);
    const json_t *j = json_array_get(json_object_get(answer, "jobs"), 0);
    if (status != 200 || !j) {
        fprintf(stderr, "herd: error: %s\n", status < 0 ? err : client_error_text(answer, status));
        json_decref(answer);
        return 1;
    }
    const char *state = jget_str(j, "state", "?"), *text = jget_str(j, "reason_text", "");
    printf("Job %s is %s", argv[1], state);
    if (!strcmp(state, "PENDING"))
        printf(" (%s)%s%s", jget_str(j, "reason", "None"), *text ? ": " : "", text);
    printf("\n");
    json_decref(answer);
    return 0;
}
