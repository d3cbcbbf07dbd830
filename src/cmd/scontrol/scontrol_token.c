/* scontrol token [lifespan=SECONDS] [username=NAME]: a JWT from the
 * controller (auth/jwt), printed as Slurm prints it, SLURM_JWT=..., ready
 * for `export`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/paths.h"
#include "cmd/scontrol/scontrol.h"

/* The token, or NULL with the error printed as Slurm's slurm_perror. */
char *scontrol_token_get(const char *prog, const char *user, long long lifespan)
{
    json_t *body = json_object(), *resp = NULL;
    if (user)
        json_object_set_new(body, "username", json_string(user));
    if (lifespan > 0)
        json_object_set_new(body, "lifespan", json_integer(lifespan));
    char err[256];
    int st = client_call(prog, "POST", PATH_TOKEN, body, &resp, err, sizeof err);
    json_decref(body);
    const char *tok = st == 200 ? json_string_value(json_object_get(resp, "token")) : NULL;
    char *out = tok ? strdup(tok) : NULL;
    if (!out)
        fprintf(stderr, "slurm_request_token error: %s\n",
                st < 0 ? err : client_error_text(resp, st));
    json_decref(resp);
    return out;
}

int scontrol_token(int argc, char **argv)
{
    const char *user = NULL;
    long long life = 0;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (!strncasecmp(argv[i], "username=", 9) && argv[i][9])
            user = argv[i] + 9;
        else if (!strncasecmp(argv[i], "lifespan=", 9) &&
                 (life = strtoll(argv[i] + 9, &end, 10)) > 0 && !*end)
            continue;
        else {
            fprintf(stderr, "Invalid parameter: %s (lifespan=SECONDS, username=NAME)\n", argv[i]);
            return 1;
        }
    }
    char *tok = scontrol_token_get("scontrol", user, life);
    if (!tok)
        return 1;
    printf("SLURM_JWT=%s\n", tok);
    free(tok);
    return 0;
}
