/*
 * rest_openapi: GET /openapi/v3 (and /openapi.json), the OpenAPI document
 * of what herdctld serves in slurmrestd's dialect, as slurmrestd serves its
 * own. The document is docs/openapi-v0.0.40.json, built into the program
 * (the Makefile rebuilds this object when it changes), so that the file
 * and the answer can never differ.
 */
#include <event2/buffer.h>
#include <string.h>

#include "common/http.h"
#include "ctld/rest.h"

__asm__(".section .rodata\n"
        ".global herd_openapi_doc\n"
        ".type herd_openapi_doc, @object\n"
        "herd_openapi_doc:\n"
        ".incbin \"docs/openapi-v0.0.40.json\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char herd_openapi_doc[];

void rest_openapi(struct http_req *r)
{
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_reference(buf, herd_openapi_doc, strlen(herd_openapi_doc), NULL, NULL);
    http_reply_buffer(r, 200, buf);
    evbuffer_free(buf);
}
