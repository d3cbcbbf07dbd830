/* herd web-url [--lifespan SECONDS]: a link that logs the caller into the
 * dashboard: the controller's /ui/ with a fresh token of theirs in the URL
 * fragment (which browsers never send to a server; the page keeps it in
 * session storage and clears the address bar). */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "client/client.h"
#include "cmd/cmds.h"
#include "cmd/scontrol/scontrol.h"
#include "common/conf.h"

#define WEB_LIFESPAN (12 * 3600)   /* a working day: the page has no refresh of its own */

int cmd_herd_web_url(int argc, char **argv)
{
    static const struct option opts[] = {
        { "lifespan", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    long long life = WEB_LIFESPAN;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "l:h", opts, NULL)) != -1) {
        char *end;
        if (c == 'l' && (life = strtoll(optarg, &end, 10)) > 0 && !*end)
            continue;
        fprintf(c == 'h' ? stdout : stderr, "Usage: herd web-url [--lifespan SECONDS]\n");
        return c == 'h' ? 0 : 1;
    }
    struct passwd *pw = getpwuid(getuid());
    if (!pw) {
        fprintf(stderr, "herd web-url: who are you? (uid %u has no passwd entry)\n",
                (unsigned)getuid());
        return 1;
    }
    const struct conf *cf = client_conf("herd web-url");
    char *tok = scontrol_token_get("herd web-url", NULL, life);
    if (!tok)
        return 1;
    printf("http://%s:%d/ui/#token=%s&user=%s\n", cf->ctld_addr, cf->ctld_port, tok, pw->pw_name);
    free(tok);
    return 0;
}
