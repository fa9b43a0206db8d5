// The reference of /v1/openapi.json, rendered by Swagger UI (served from our own
// origin: the page's CSP loads nothing from anyone else).
"use strict";
window.addEventListener("DOMContentLoaded", function () {
  window.ui = window.SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#reference",
    deepLinking: true,
    // No badge from an outside validator, no fetching other documents.
    validatorUrl: null,
    queryConfigEnabled: false,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
