/*
 * api_ui: serves the dashboard's static files (ui/, built in: ui_files.h)
 * at /ui/ on the controller's port. They are anonymous routes: the files
 * hold no data, and every call the page makes for data is authenticated
 * as any other client's (docs/dashboard.md). Each answer is revalidated
 * (no-cache with an ETag of its bytes): an upgraded controller serves its
 * new page at once, an unchanged one answers 304 without the body.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/fnv.h"
#include "common/http.h"
#include "ctld/api.h"
#include "ctld/ui_files.h"

/* The page loads only its own files and talks only to its own origin;
 * charts are inline SVG, so nothing else is needed. */
#define UI_CSP "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " \
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

static const struct ui_file *ui_find(const char *name)
{
    for (size_t i = 0; i < ui_nfiles; i++)
        if (strcmp(ui_files[i].name, name) == 0)
            return &ui_files[i];
    return NULL;
}

static void ui_etag(const struct ui_file *f, char *buf, size_t len)
{
    uint64_t h = fnv1a_mem(f->data, f->len);
    snprintf(buf, len, "\"%016llx\"", (unsigned long long)h);
}

static void ui_send(struct http_req *r, const char *name)
{
    const struct ui_file *f = ui_find(name);
    struct evbuffer *b = evbuffer_new();
    struct evkeyvalq *out = evhttp_request_get_output_headers(r->ev);
    if (!f) {
        evbuffer_add_printf(b, "not found\n");
        http_reply_buffer_type(r, 404, b, "text/plain; charset=utf-8");
        evbuffer_free(b);
        return;
    }
    char etag[24];
    ui_etag(f, etag, sizeof etag);
    evhttp_add_header(out, "Cache-Control", "no-cache");
    evhttp_add_header(out, "ETag", etag);
    evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
    evhttp_add_header(out, "Referrer-Policy", "no-referrer");
    evhttp_add_header(out, "Content-Security-Policy", UI_CSP);
    const char *inm = evhttp_find_header(evhttp_request_get_input_headers(r->ev),
                                         "If-None-Match");
    if (inm && strcmp(inm, etag) == 0) {
        http_reply_buffer_type(r, 304, b, NULL);
    } else {
        evbuffer_add_reference(b, f->data, f->len, NULL, NULL);
        http_reply_buffer_type(r, 200, b, f->type);
    }
    evbuffer_free(b);
}

void api_ui_index(struct http_req *r)
{
    ui_send(r, "index.html");
}

void api_ui_file(struct http_req *r)
{
    ui_send(r, r->args[0]);
}

/* "/ui" without its slash: the page's relative links need the folder. */
void api_ui_redirect(struct http_req *r)
{
    struct evbuffer *b = evbuffer_new();
    evhttp_add_header(evhttp_request_get_output_headers(r->ev), "Location", "/ui/");
    http_reply_buffer_type(r, 301, b, NULL);
    evbuffer_free(b);
}
