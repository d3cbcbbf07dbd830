/*
 * Fuzzes the controller's reservation handlers: the body of POST
 * /v1/reservations (scontrol create reservation: {"ReservationName",
 * "StartTime", "Duration", "Users", "Nodes", "Flags", ...}, strings) as
 * api_resv_create applies it (resv_parse, resv_place), and the same body
 * as an update of the fixture's reservation "maint" (resv_dup, resv_parse,
 * resv_place), against the controller of ctld_fixture.h. What is built is
 * shown (resv_to_json), recorded (resv_record) and freed: the table keeps
 * only the fixture's two.
 */

#include "ctld/api.h"
#include "ctld_fixture.h"

static void show_free(struct ctld *c, struct resv *v, int64_t now)
{
    json_decref(resv_to_json(c, v, now, true));
    json_decref(resv_record(c, v));
    free(resv_nodes_str(c, v));
    resv_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ctld *c = fixture_ctld();
    json_t *body = fixture_body(data, size);
    if (!body)
        return 0;
    int64_t now = ctld_now();
    int code = 0;
    char err[256];
    const char *name = api_resv_body_name(body);
    if (!name || !resv_find(c, name, false)) {   /* else a duplicate, refused */
        struct resv *v = xcalloc(1, sizeof *v);
        v->name = name && *name ? xstrdup(name) : NULL;
        if (resv_parse(c, v, body, true, now, &code, err, sizeof err) == 0 &&
            resv_place(c, v, NULL, now, &code, err, sizeof err) == 0)
            show_free(c, v, now);
        else
            resv_free(v);
    }
    struct resv *old = resv_find(c, "maint", false);
    struct resv *v = resv_dup(old);
    if (resv_parse(c, v, body, false, now, &code, err, sizeof err) == 0 &&
        resv_place(c, v, old, now, &code, err, sizeof err) == 0)
        show_free(c, v, now);
    else
        resv_free(v);
    json_decref(body);
    return 0;
}
