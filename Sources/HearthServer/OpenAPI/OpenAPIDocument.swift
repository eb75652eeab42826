// The OpenAPI 3.1 document of every endpoint `hearth serve` answers, served at `GET /openapi.json`.
// Edit the JSON below when a route is added or changed: `OpenAPIRouteTests` fails, naming the route, when the
// router and this document disagree, and checks that the text is valid JSON.

/// The OpenAPI 3.1 description of every HTTP endpoint, served at `GET /openapi.json`.
public enum OpenAPIDocument {
    /// The document's JSON text.
    public static let json = ##"""
{
 "openapi": "3.1.0",
 "info": {
  "title": "Hearth",
  "version": "1",
  "summary": "A self-hostable identity server, wire-compatible with Firebase Authentication.",
  "description": "Every HTTP endpoint `hearth serve` answers. Paths are host-relative, as Firebase clients use them against an emulator host (FIREBASE_AUTH_EMULATOR_HOST). API errors are the Google error envelope (GoogleError). Every response carries X-Request-Id. The dev identity providers exist only with --dev. This document is kept in the repository (Sources/HearthServer/OpenAPI/OpenAPIDocument.swift) and served at /openapi.json; HearthServerTests fails when it and the router disagree."
 },
 "tags": [
  {
   "name": "client API v1"
  },
  {
   "name": "client API v3 (legacy aliases)"
  },
  {
   "name": "secure token"
  },
  {
   "name": "public keys"
  },
  {
   "name": "admin API"
  },
  {
   "name": "emulator"
  },
  {
   "name": "auth handler"
  },
  {
   "name": "operations"
  },
  {
   "name": "dev identity providers"
  },
  {
   "name": "console"
  }
 ],
 "paths": {
  "/": {
   "get": {
    "operationId": "index",
    "tags": [
     "operations"
    ],
    "summary": "Service name and project (JSON), or a start page for browsers.",
    "responses": {
     "200": {
      "description": "JSON, or HTML when the client asks for text/html first.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "service": {
           "type": "string"
          },
          "projectId": {
           "type": "string"
          }
         }
        }
       },
       "text/html": {
        "schema": {
         "type": "string"
        }
       }
      }
     }
    }
   }
  },
  "/.well-known/jwks.json": {
   "get": {
    "operationId": "wellKnownJWKS",
    "tags": [
     "public keys"
    ],
    "summary": "ID-token verification keys as a JWK set (short alias).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/JWKSet"
        }
       }
      },
      "headers": {
       "Cache-Control": {
        "schema": {
         "type": "string"
        },
        "description": "public, max-age=… (no longer than the key pre-publication time)"
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/__/auth/callback": {
   "get": {
    "operationId": "authCallback",
    "tags": [
     "auth handler"
    ],
    "summary": "A page telling a person to return to the app.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     }
    }
   }
  },
  "/__/auth/handler": {
   "get": {
    "operationId": "authHandler",
    "tags": [
     "auth handler"
    ],
    "summary": "Starts a federated sign-in (redirect to the provider) or receives the provider's callback (redirect back to the app).",
    "parameters": [
     {
      "name": "apiKey",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "appName",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "authType",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "providerId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "redirectUrl",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "eventId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "sessionId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "v",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "tid",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "customParameters",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "scopes",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "state",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "code",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "error",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "error_description",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "4XX": {
      "$ref": "#/components/responses/HTMLPage"
     }
    }
   }
  },
  "/__dev/microsoft/v1.0/me": {
   "get": {
    "operationId": "devMicrosoftProfile",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft Graph-shaped profile (Bearer access token).",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/microsoft/{tenant}/discovery/v2.0/keys": {
   "get": {
    "operationId": "devMicrosoftKeys",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft-shaped JWKS.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "tenant",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/microsoft/{tenant}/oauth2/v2.0/authorize": {
   "get": {
    "operationId": "devMicrosoftAuthorizeForm",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft-shaped sign-in form.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "tenant",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   },
   "post": {
    "operationId": "devMicrosoftAuthorizeSubmit",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft-shaped sign-in form submission.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "tenant",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    },
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/microsoft/{tenant}/oauth2/v2.0/token": {
   "post": {
    "operationId": "devMicrosoftToken",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft-shaped token endpoint.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "tenant",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/microsoft/{tenant}/v2.0/.well-known/openid-configuration": {
   "get": {
    "operationId": "devMicrosoftDiscovery",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Microsoft-shaped discovery document.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "tenant",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/try": {
   "get": {
    "operationId": "devTry",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Runs a federated sign-in in the browser, as an app would.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "provider",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "tenant",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/try/done": {
   "get": {
    "operationId": "devTryDone",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Where /__dev/try's sign-in ends: completes signInWithIdp and shows the result.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "parameters": [
     {
      "name": "s",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "p",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "t",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "link",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "firebaseError",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/yahoo/.well-known/openid-configuration": {
   "get": {
    "operationId": "devYahooDiscovery",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped discovery document.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/yahoo/oauth2/get_token": {
   "post": {
    "operationId": "devYahooToken",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped token endpoint.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/yahoo/oauth2/request_auth": {
   "get": {
    "operationId": "devYahooAuthorizeForm",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped sign-in form.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   },
   "post": {
    "operationId": "devYahooAuthorizeSubmit",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped sign-in form submission.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    },
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/yahoo/openid/v1/certs": {
   "get": {
    "operationId": "devYahooKeys",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped JWKS.",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/__dev/yahoo/openid/v1/userinfo": {
   "get": {
    "operationId": "devYahooUserinfo",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped userinfo (Bearer access token).",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   },
   "post": {
    "operationId": "devYahooUserinfoPost",
    "tags": [
     "dev identity providers"
    ],
    "summary": "Yahoo-shaped userinfo (Bearer access token).",
    "description": "Only with `hearth serve --dev`: the built-in dev identity providers (real OpenID providers for development and tests).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   }
  },
  "/console": {
   "get": {
    "operationId": "consoleOverview",
    "tags": [
     "console"
    ],
    "summary": "Overview.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/apps": {
   "get": {
    "operationId": "consoleApps",
    "tags": [
     "console"
    ],
    "summary": "Registered apps.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleAddApp",
    "tags": [
     "console"
    ],
    "summary": "Register an app.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/apps/remove": {
   "post": {
    "operationId": "consoleRemoveApp",
    "tags": [
     "console"
    ],
    "summary": "Remove an app.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/audit": {
   "get": {
    "operationId": "consoleAudit",
    "tags": [
     "console"
    ],
    "summary": "Audit log.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/console.js": {
   "get": {
    "operationId": "consoleScript",
    "tags": [
     "console"
    ],
    "summary": "The console's script.",
    "responses": {
     "200": {
      "description": "JavaScript",
      "content": {
       "text/javascript": {
        "schema": {
         "type": "string"
        }
       }
      }
     }
    }
   }
  },
  "/console/keys": {
   "get": {
    "operationId": "consoleKeys",
    "tags": [
     "console"
    ],
    "summary": "Signing keys.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/keys/rotate": {
   "post": {
    "operationId": "consoleRotateKeys",
    "tags": [
     "console"
    ],
    "summary": "Rotate the signing keys.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/login": {
   "get": {
    "operationId": "consoleLoginPage",
    "tags": [
     "console"
    ],
    "summary": "The console's login page.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    }
   },
   "post": {
    "operationId": "consoleLogin",
    "tags": [
     "console"
    ],
    "summary": "Sign in to the console.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/login/link": {
   "get": {
    "operationId": "consoleLoginLink",
    "tags": [
     "console"
    ],
    "summary": "Sign in with a one-time login link.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "token",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/logout": {
   "post": {
    "operationId": "consoleLogout",
    "tags": [
     "console"
    ],
    "summary": "Sign out of the console.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/provider": {
   "get": {
    "operationId": "consoleProvider",
    "tags": [
     "console"
    ],
    "summary": "Configure a provider.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleSaveProvider",
    "tags": [
     "console"
    ],
    "summary": "Save a provider configuration.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/providers": {
   "get": {
    "operationId": "consoleProviders",
    "tags": [
     "console"
    ],
    "summary": "Sign-in methods.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/providers/builtin": {
   "post": {
    "operationId": "consoleBuiltinProvider",
    "tags": [
     "console"
    ],
    "summary": "Turn a built-in sign-in method on or off.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/service-accounts": {
   "get": {
    "operationId": "consoleServiceAccounts",
    "tags": [
     "console"
    ],
    "summary": "Service accounts.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleAddServiceAccount",
    "tags": [
     "console"
    ],
    "summary": "Create a service-account key.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/service-accounts/remove": {
   "post": {
    "operationId": "consoleRemoveServiceAccount",
    "tags": [
     "console"
    ],
    "summary": "Remove a service-account key.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/settings": {
   "get": {
    "operationId": "consoleSettings",
    "tags": [
     "console"
    ],
    "summary": "Settings.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleSaveSettings",
    "tags": [
     "console"
    ],
    "summary": "Save settings.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/settings/domains": {
   "post": {
    "operationId": "consoleSaveDomains",
    "tags": [
     "console"
    ],
    "summary": "Save authorized domains.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/user": {
   "get": {
    "operationId": "consoleUser",
    "tags": [
     "console"
    ],
    "summary": "One user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   }
  },
  "/console/user/claims": {
   "post": {
    "operationId": "consoleUserClaims",
    "tags": [
     "console"
    ],
    "summary": "Set a user's custom claims.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/user/delete": {
   "get": {
    "operationId": "consoleConfirmDelete",
    "tags": [
     "console"
    ],
    "summary": "Confirm deleting a user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleDeleteUser",
    "tags": [
     "console"
    ],
    "summary": "Delete a user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/user/disable": {
   "post": {
    "operationId": "consoleDisableUser",
    "tags": [
     "console"
    ],
    "summary": "Disable a user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/user/enable": {
   "post": {
    "operationId": "consoleEnableUser",
    "tags": [
     "console"
    ],
    "summary": "Enable a user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/user/revoke": {
   "post": {
    "operationId": "consoleRevokeUser",
    "tags": [
     "console"
    ],
    "summary": "Revoke a user's sessions.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/console/users": {
   "get": {
    "operationId": "consoleUsers",
    "tags": [
     "console"
    ],
    "summary": "Users.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "page",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "uid",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "id",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "ok",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "before",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "post": {
    "operationId": "consoleCreateUser",
    "tags": [
     "console"
    ],
    "summary": "Create a user.",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  },
  "/emulator/auth/handler": {
   "get": {
    "operationId": "emulatorAuthHandler",
    "tags": [
     "auth handler"
    ],
    "summary": "Starts a federated sign-in (redirect to the provider) or receives the provider's callback (redirect back to the app).",
    "parameters": [
     {
      "name": "apiKey",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "appName",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "authType",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "providerId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "redirectUrl",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "eventId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "sessionId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "v",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "tid",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "customParameters",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "scopes",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "state",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "code",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "error",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "error_description",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "302": {
      "$ref": "#/components/responses/Redirect"
     },
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "4XX": {
      "$ref": "#/components/responses/HTMLPage"
     }
    }
   }
  },
  "/emulator/v1/projects/{project}/accounts": {
   "delete": {
    "operationId": "emulatorDeleteAllUsers",
    "tags": [
     "emulator"
    ],
    "summary": "Delete every user (the Auth emulator's reset).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Empty"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/emulator/v1/projects/{project}/config": {
   "get": {
    "operationId": "emulatorGetConfig",
    "tags": [
     "emulator"
    ],
    "summary": "The emulator configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/EmulatorConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "patch": {
    "operationId": "emulatorUpdateConfig",
    "tags": [
     "emulator"
    ],
    "summary": "Change the emulator configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/EmulatorConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/EmulatorConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/healthz": {
   "get": {
    "operationId": "healthz",
    "tags": [
     "operations"
    ],
    "summary": "Liveness: the process answers.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "status": {
           "type": "string"
          }
         },
         "required": [
          "status"
         ]
        }
       }
      }
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/admin/v2/projects/{project}/config": {
   "get": {
    "operationId": "getProjectConfigResourceAdmin",
    "tags": [
     "admin API"
    ],
    "summary": "The project's configuration resource.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminProjectConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "patch": {
    "operationId": "updateProjectConfigResourceAdmin",
    "tags": [
     "admin API"
    ],
    "summary": "Change the project's configuration (fields named by updateMask).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "updateMask",
      "in": "query",
      "schema": {
       "type": "string"
      },
      "description": "Comma-separated field paths to change."
     },
     {
      "name": "update_mask",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminProjectConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminProjectConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:createAuthUri": {
   "post": {
    "operationId": "accountsCreateAuthUri",
    "tags": [
     "client API v1"
    ],
    "summary": "Sign-in methods for an email, or the provider's authorization URL.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateAuthUriRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CreateAuthUriResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:delete": {
   "post": {
    "operationId": "accountsDelete",
    "tags": [
     "client API v1"
    ],
    "summary": "Delete the signed-in user's account.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/IdTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DeleteAccountResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:lookup": {
   "post": {
    "operationId": "accountsLookup",
    "tags": [
     "client API v1"
    ],
    "summary": "The signed-in user's account.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/IdTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/LookupResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken": {
   "post": {
    "operationId": "accountsSignInWithCustomToken",
    "tags": [
     "client API v1"
    ],
    "summary": "Sign in with a custom token signed by a registered service-account key.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithCustomTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithCustomTokenResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp": {
   "post": {
    "operationId": "accountsSignInWithIdp",
    "tags": [
     "client API v1"
    ],
    "summary": "Complete a federated sign-in (the auth handler's result, or a pending credential).",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithIdpRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithIdpResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword": {
   "post": {
    "operationId": "accountsSignInWithPassword",
    "tags": [
     "client API v1"
    ],
    "summary": "Sign in with email and password (INVALID_LOGIN_CREDENTIALS for a wrong pair).",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithPasswordRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithPasswordResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:signUp": {
   "post": {
    "operationId": "accountsSignUp",
    "tags": [
     "client API v1"
    ],
    "summary": "Create an account: email and password, or anonymous (no fields); with idToken, upgrade an anonymous account.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignUpRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignUpResponse"
        }
       }
      },
      "links": {
       "Lookup": {
        "operationId": "accountsLookup",
        "requestBody": {
         "idToken": "$response.body#/idToken"
        },
        "description": "The new account's ID token looks it up."
       },
       "Update": {
        "operationId": "accountsUpdate",
        "requestBody": {
         "idToken": "$response.body#/idToken",
         "displayName": "Schemathesis"
        },
        "description": "The new account's ID token updates it."
       },
       "Delete": {
        "operationId": "accountsDelete",
        "requestBody": {
         "idToken": "$response.body#/idToken"
        },
        "description": "The new account's ID token deletes it."
       },
       "Refresh": {
        "operationId": "secureToken",
        "requestBody": {
         "grant_type": "refresh_token",
         "refresh_token": "$response.body#/refreshToken"
        },
        "description": "The new session's refresh token is rotated."
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/accounts:update": {
   "post": {
    "operationId": "accountsUpdate",
    "tags": [
     "client API v1"
    ],
    "summary": "Change the signed-in user's profile, email or password.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/UpdateRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/UpdateResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects": {
   "get": {
    "tags": [
     "client API v1"
    ],
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GetProjectConfigResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    },
    "operationId": "getProjectConfigV1",
    "summary": "The project's id and authorized domains."
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts": {
   "post": {
    "operationId": "adminCreateUser",
    "tags": [
     "admin API"
    ],
    "summary": "Create a user.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminCreateUserRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminUpdateResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchCreate": {
   "post": {
    "operationId": "adminImportUsers",
    "tags": [
     "admin API"
    ],
    "summary": "Import users, with password hashes (Firebase scrypt, bcrypt, PBKDF2, ...).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ImportUsersRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ImportUsersResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchDelete": {
   "post": {
    "operationId": "adminBatchDelete",
    "tags": [
     "admin API"
    ],
    "summary": "Delete up to 1000 users.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/BatchDeleteRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/BatchDeleteResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchGet": {
   "get": {
    "operationId": "adminBatchGet",
    "tags": [
     "admin API"
    ],
    "summary": "List users page by page.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "maxResults",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "nextPageToken",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/BatchGetResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:delete": {
   "post": {
    "operationId": "adminDelete",
    "tags": [
     "admin API"
    ],
    "summary": "Delete a user.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminDeleteRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DeleteAccountResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:lookup": {
   "post": {
    "operationId": "adminLookup",
    "tags": [
     "admin API"
    ],
    "summary": "Look users up by uid, email, phone number or federated id.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminLookupRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminLookupResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:query": {
   "post": {
    "operationId": "adminQuery",
    "tags": [
     "admin API"
    ],
    "summary": "Count or list users, sorted and filtered.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/QueryUsersRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/QueryUsersResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:update": {
   "post": {
    "operationId": "adminUpdate",
    "tags": [
     "admin API"
    ],
    "summary": "Update a user (profile, password, claims, disabled, providers).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminUpdateRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminUpdateResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}/auditLog": {
   "get": {
    "operationId": "adminAuditLog",
    "tags": [
     "admin API"
    ],
    "summary": "The audit log of administrative writes, newest first.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "pageSize",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "pageToken",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AuditLogResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/projects/{project}:createSessionCookie": {
   "post": {
    "operationId": "adminCreateSessionCookie",
    "tags": [
     "admin API"
    ],
    "summary": "Mint a session cookie from an ID token.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateSessionCookieRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CreateSessionCookieResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys": {
   "get": {
    "operationId": "sessionCookieJWKS",
    "tags": [
     "public keys"
    ],
    "summary": "Session-cookie verification keys as a JWK set.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/JWKSet"
        }
       }
      },
      "headers": {
       "Cache-Control": {
        "schema": {
         "type": "string"
        },
        "description": "public, max-age=… (no longer than the key pre-publication time)"
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/defaultSupportedIdps": {
   "get": {
    "operationId": "listDefaultSupportedIdps",
    "tags": [
     "admin API"
    ],
    "summary": "The built-in providers Hearth supports.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DefaultSupportedIdpList"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/config": {
   "get": {
    "operationId": "getProjectConfigResource",
    "tags": [
     "admin API"
    ],
    "summary": "The project's configuration resource.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminProjectConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "patch": {
    "operationId": "updateProjectConfigResource",
    "tags": [
     "admin API"
    ],
    "summary": "Change the project's configuration (fields named by updateMask).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "updateMask",
      "in": "query",
      "schema": {
       "type": "string"
      },
      "description": "Comma-separated field paths to change."
     },
     {
      "name": "update_mask",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AdminProjectConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminProjectConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/defaultSupportedIdpConfigs": {
   "post": {
    "operationId": "createDefaultIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Configure a provider (defaultSupportedIdpConfigs).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idpId",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "get": {
    "operationId": "listDefaultIdpConfigs",
    "tags": [
     "admin API"
    ],
    "summary": "List defaultSupportedIdpConfigs.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "pageSize",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "pageToken",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DefaultSupportedIdpConfigList"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/defaultSupportedIdpConfigs/{idp}": {
   "get": {
    "operationId": "getDefaultIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "One provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "patch": {
    "operationId": "updateDefaultIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Change a provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "updateMask",
      "in": "query",
      "schema": {
       "type": "string"
      },
      "description": "Comma-separated field paths to change."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "delete": {
    "operationId": "deleteDefaultIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Remove a provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Empty"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/oauthIdpConfigs": {
   "post": {
    "operationId": "createOAuthIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Configure a provider (oauthIdpConfigs).",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "oauthIdpConfigId",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OAuthIdpConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "get": {
    "operationId": "listOAuthIdpConfigs",
    "tags": [
     "admin API"
    ],
    "summary": "List oauthIdpConfigs.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "pageSize",
      "in": "query",
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "pageToken",
      "in": "query",
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthIdpConfigList"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/oauthIdpConfigs/{idp}": {
   "get": {
    "operationId": "getOAuthIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "One provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "patch": {
    "operationId": "updateOAuthIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Change a provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "updateMask",
      "in": "query",
      "schema": {
       "type": "string"
      },
      "description": "Comma-separated field paths to change."
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OAuthIdpConfig"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthIdpConfig"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "delete": {
    "operationId": "deleteOAuthIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Remove a provider configuration.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Empty"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/metrics": {
   "get": {
    "operationId": "metrics",
    "tags": [
     "operations"
    ],
    "summary": "Prometheus metrics (text format 0.0.4). Who may read them is metrics.access: local (default), public, token or off.",
    "security": [
     {},
     {
      "metricsBearer": []
     }
    ],
    "responses": {
     "200": {
      "description": "Prometheus exposition",
      "content": {
       "text/plain": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/oauth2.googleapis.com/token": {
   "post": {
    "operationId": "oauth2Token",
    "tags": [
     "admin API"
    ],
    "summary": "Service-account JWT-bearer grant (RFC 7523): a one-hour access token for the admin API.",
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object",
        "properties": {
         "grant_type": {
          "type": "string"
         },
         "assertion": {
          "type": "string"
         }
        }
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthTokenResponse"
        }
       }
      }
     },
     "4XX": {
      "description": "An OAuth 2 error (RFC 6749 §5.2).",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OAuthError"
        }
       }
      }
     }
    }
   }
  },
  "/openapi.json": {
   "get": {
    "operationId": "openapi",
    "tags": [
     "operations"
    ],
    "summary": "This document.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     }
    }
   }
  },
  "/readyz": {
   "get": {
    "operationId": "readyz",
    "tags": [
     "operations"
    ],
    "summary": "Readiness: the store answers and a signing key is loaded.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Readiness"
        }
       }
      }
     },
     "503": {
      "description": "Not ready; error.message says why (NOT_READY : …).",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GoogleError"
        }
       }
      }
     }
    }
   }
  },
  "/securetoken.googleapis.com/v1/token": {
   "post": {
    "operationId": "secureToken",
    "tags": [
     "secure token"
    ],
    "summary": "Exchange a refresh token for a new ID token; the refresh token rotates.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "parameters": [
     {
      "name": "grant_type",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "refresh_token",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/GrantTokenRequest"
       }
      },
      "application/x-www-form-urlencoded": {
       "schema": {
        "$ref": "#/components/schemas/GrantTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GrantTokenResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/createAuthUri": {
   "post": {
    "operationId": "relyingpartyCreateAuthUri",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:createAuthUri.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateAuthUriRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CreateAuthUriResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/deleteAccount": {
   "post": {
    "operationId": "relyingpartyDeleteAccount",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:delete.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/IdTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DeleteAccountResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo": {
   "post": {
    "operationId": "relyingpartyGetAccountInfo",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:lookup.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/IdTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/LookupResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig": {
   "get": {
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GetProjectConfigResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    },
    "operationId": "getProjectConfig",
    "summary": "The project's id and authorized domains (the iOS SDK's GET)."
   },
   "post": {
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GetProjectConfigResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    },
    "operationId": "getProjectConfigPost",
    "summary": "The project's id and authorized domains."
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys": {
   "get": {
    "operationId": "sessionCookieCertificates",
    "tags": [
     "public keys"
    ],
    "summary": "Session-cookie verification keys by kid.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CertificateMap"
        }
       }
      },
      "headers": {
       "Cache-Control": {
        "schema": {
         "type": "string"
        },
        "description": "public, max-age=… (no longer than the key pre-publication time)"
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo": {
   "post": {
    "operationId": "relyingpartySetAccountInfo",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:update.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/UpdateRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/UpdateResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser": {
   "post": {
    "operationId": "relyingpartySignupNewUser",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:signUp.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignUpRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignUpResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion": {
   "post": {
    "operationId": "relyingpartyVerifyAssertion",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:signInWithIdp.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithIdpRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithIdpResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyCustomToken": {
   "post": {
    "operationId": "relyingpartyVerifyCustomToken",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:signInWithCustomToken.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithCustomTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithCustomTokenResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword": {
   "post": {
    "operationId": "relyingpartyVerifyPassword",
    "tags": [
     "client API v3 (legacy aliases)"
    ],
    "summary": "Legacy alias of accounts:signInWithPassword.",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SignInWithPasswordRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SignInWithPasswordResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com": {
   "get": {
    "operationId": "idTokenCertificates",
    "tags": [
     "public keys"
    ],
    "summary": "ID-token verification keys as x509 certificates by kid (what the Admin SDKs read).",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CertificateMap"
        }
       }
      },
      "headers": {
       "Cache-Control": {
        "schema": {
         "type": "string"
        },
        "description": "public, max-age=… (no longer than the key pre-publication time)"
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com": {
   "get": {
    "operationId": "idTokenJWKS",
    "tags": [
     "public keys"
    ],
    "summary": "ID-token verification keys as a JWK set.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/JWKSet"
        }
       }
      },
      "headers": {
       "Cache-Control": {
        "schema": {
         "type": "string"
        },
        "description": "public, max-age=… (no longer than the key pre-publication time)"
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/defaultSupportedIdpConfigs/{idp}:test": {
   "post": {
    "operationId": "testDefaultSupportedIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Check a provider's stored configuration without a user (Hearth extension).",
    "description": "Discovery, issuer, signing keys, the tenant allow-list, the client id and secret (a made-up code redeemed at the token endpoint), and the redirect URI to register; each check says what to fix.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ProviderCheckReport"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/identitytoolkit.googleapis.com/v2/projects/{project}/oauthIdpConfigs/{idp}:test": {
   "post": {
    "operationId": "testOAuthIdpConfig",
    "tags": [
     "admin API"
    ],
    "summary": "Check a provider's stored configuration without a user (Hearth extension).",
    "description": "Discovery, issuer, signing keys, the tenant allow-list, the client id and secret (a made-up code redeemed at the token endpoint), and the redirect URI to register; each check says what to fix.",
    "security": [
     {
      "adminBearer": []
     }
    ],
    "parameters": [
     {
      "name": "project",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "The server's project id."
     },
     {
      "name": "idp",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ProviderCheckReport"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/hearth/v1/providerAccessToken": {
   "post": {
    "operationId": "providerAccessToken",
    "tags": [
     "client API v1"
    ],
    "summary": "A fresh provider access token for the signed-in user (Hearth extension: the provider token vault).",
    "description": "Authorization: Bearer <the user's Hearth ID token> (or idToken in the body). Answers the kept access token while it has more than a minute left, otherwise renews it with the kept refresh token. Errors: NO_PROVIDER_TOKEN, PROVIDER_TOKEN_VAULT_DISABLED, PROVIDER_UNAVAILABLE (502).",
    "security": [
     {},
     {
      "apiKeyQuery": []
     },
     {
      "apiKeyHeader": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ProviderAccessTokenRequest"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ProviderAccessTokenResponse"
        }
       }
      }
     },
     "4XX": {
      "$ref": "#/components/responses/Error"
     },
     "502": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/console/provider/test": {
   "post": {
    "operationId": "consoleTestProvider",
    "tags": [
     "console"
    ],
    "summary": "Check a provider configuration (the \"Test configuration\" button).",
    "description": "The web console (HTML pages and form posts; a signed-in console session and its CSRF token are needed). See docs/console.md.",
    "responses": {
     "200": {
      "$ref": "#/components/responses/HTMLPage"
     },
     "303": {
      "$ref": "#/components/responses/Redirect"
     },
     "4XX": {
      "$ref": "#/components/responses/AnyError"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/x-www-form-urlencoded": {
       "schema": {
        "type": "object"
       }
      }
     }
    }
   }
  }
 },
 "components": {
  "schemas": {
   "GoogleError": {
    "type": "object",
    "properties": {
     "error": {
      "type": "object",
      "properties": {
       "code": {
        "type": "integer",
        "description": "The HTTP status, repeated."
       },
       "message": {
        "type": "string",
        "description": "`CODE` or `CODE : detail`; Firebase clients read the code before the first colon."
       },
       "errors": {
        "type": "array",
        "items": {
         "type": "object",
         "properties": {
          "message": {
           "type": "string"
          },
          "reason": {
           "type": "string"
          },
          "domain": {
           "type": "string"
          }
         },
         "required": [
          "message",
          "reason",
          "domain"
         ]
        }
       },
       "status": {
        "type": "string",
        "description": "The canonical status (INVALID_ARGUMENT, PERMISSION_DENIED, ...); absent on plain 400s."
       },
       "details": {
        "type": "array",
        "description": "google.rpc.ErrorInfo entries; Hearth puts a provider's refusal here (domain providers.hearth).",
        "items": {
         "type": "object",
         "properties": {
          "@type": {
           "type": "string"
          },
          "reason": {
           "type": "string"
          },
          "domain": {
           "type": "string"
          },
          "metadata": {
           "type": "object",
           "additionalProperties": {
            "type": "string"
           }
          }
         }
        }
       }
      },
      "required": [
       "code",
       "message",
       "errors"
      ]
     }
    },
    "required": [
     "error"
    ],
    "description": "The Google error envelope every API error is answered with."
   },
   "ProviderUserInfo": {
    "type": "object",
    "properties": {
     "providerId": {
      "type": "string"
     },
     "rawId": {
      "type": "string"
     },
     "federatedId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     }
    },
    "required": [
     "providerId"
    ]
   },
   "UserInfo": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     },
     "passwordHash": {
      "type": "string"
     },
     "salt": {
      "type": "string"
     },
     "passwordUpdatedAt": {
      "type": "number"
     },
     "providerUserInfo": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ProviderUserInfo"
      }
     },
     "validSince": {
      "type": "string"
     },
     "disabled": {
      "type": "boolean"
     },
     "lastLoginAt": {
      "type": "string"
     },
     "createdAt": {
      "type": "string"
     },
     "lastRefreshAt": {
      "type": "string"
     },
     "customAttributes": {
      "type": "string"
     },
     "customAuth": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    },
    "required": [
     "localId"
    ]
   },
   "SignUpRequest": {
    "type": "object",
    "properties": {
     "email": {
      "type": "string",
      "format": "email"
     },
     "password": {
      "type": "string",
      "minLength": 6
     },
     "displayName": {
      "type": "string"
     },
     "idToken": {
      "type": "string"
     },
     "returnSecureToken": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "SignUpResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "idToken": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "string"
     }
    },
    "required": [
     "localId"
    ]
   },
   "SignInWithPasswordRequest": {
    "type": "object",
    "properties": {
     "email": {
      "type": "string",
      "format": "email"
     },
     "password": {
      "type": "string"
     },
     "returnSecureToken": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "SignInWithPasswordResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "profilePicture": {
      "type": "string"
     },
     "registered": {
      "type": "boolean"
     },
     "idToken": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "string"
     }
    },
    "required": [
     "localId"
    ]
   },
   "IdTokenRequest": {
    "type": "object",
    "properties": {
     "idToken": {
      "type": "string"
     }
    }
   },
   "LookupResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "users": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/UserInfo"
      }
     }
    }
   },
   "UpdateRequest": {
    "type": "object",
    "properties": {
     "idToken": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "password": {
      "type": "string",
      "minLength": 6
     },
     "email": {
      "type": "string",
      "format": "email"
     },
     "deleteAttribute": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "deleteProvider": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "returnSecureToken": {
      "type": "boolean"
     }
    }
   },
   "UpdateResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "providerUserInfo": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ProviderUserInfo"
      }
     },
     "idToken": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "string"
     }
    },
    "required": [
     "localId"
    ]
   },
   "DeleteAccountResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     }
    }
   },
   "CreateAuthUriRequest": {
    "type": "object",
    "properties": {
     "identifier": {
      "type": "string"
     },
     "continueUri": {
      "type": "string"
     },
     "providerId": {
      "type": "string"
     },
     "sessionId": {
      "type": "string"
     },
     "tenantId": {
      "type": "string"
     },
     "appId": {
      "type": "string",
      "description": "With providerId: the desktop app that will open the auth handler; APP_NOT_AUTHORIZED when it is not registered."
     }
    }
   },
   "CreateAuthUriResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "registered": {
      "type": "boolean"
     },
     "allProviders": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "signinMethods": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "sessionId": {
      "type": "string"
     },
     "providerId": {
      "type": "string"
     },
     "authUri": {
      "type": "string"
     }
    }
   },
   "SignInWithIdpRequest": {
    "type": "object",
    "properties": {
     "requestUri": {
      "type": "string"
     },
     "postBody": {
      "type": "string"
     },
     "sessionId": {
      "type": "string"
     },
     "pendingToken": {
      "type": "string"
     },
     "idToken": {
      "type": "string"
     },
     "returnSecureToken": {
      "type": "boolean"
     },
     "returnIdpCredential": {
      "type": "boolean"
     },
     "autoCreate": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "SignInWithIdpResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "federatedId": {
      "type": "string"
     },
     "providerId": {
      "type": "string"
     },
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "displayName": {
      "type": "string"
     },
     "fullName": {
      "type": "string"
     },
     "firstName": {
      "type": "string"
     },
     "lastName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "rawUserInfo": {
      "type": "string"
     },
     "oauthAccessToken": {
      "type": "string"
     },
     "oauthIdToken": {
      "type": "string"
     },
     "oauthExpireIn": {
      "type": "integer"
     },
     "idToken": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "string"
     },
     "isNewUser": {
      "type": "boolean"
     },
     "needConfirmation": {
      "type": "boolean"
     },
     "verifiedProvider": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "pendingToken": {
      "type": "string"
     },
     "errorMessage": {
      "type": "string"
     }
    }
   },
   "SignInWithCustomTokenRequest": {
    "type": "object",
    "properties": {
     "token": {
      "type": "string"
     },
     "returnSecureToken": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "SignInWithCustomTokenResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "idToken": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "string"
     },
     "isNewUser": {
      "type": "boolean"
     }
    }
   },
   "GetProjectConfigResponse": {
    "type": "object",
    "properties": {
     "projectId": {
      "type": "string"
     },
     "authorizedDomains": {
      "type": "array",
      "items": {
       "type": "string"
      }
     }
    },
    "required": [
     "projectId",
     "authorizedDomains"
    ]
   },
   "GrantTokenRequest": {
    "type": "object",
    "properties": {
     "grant_type": {
      "type": "string",
      "description": "refresh_token"
     },
     "refresh_token": {
      "type": "string"
     },
     "grantType": {
      "type": "string"
     },
     "refreshToken": {
      "type": "string"
     }
    }
   },
   "GrantTokenResponse": {
    "type": "object",
    "properties": {
     "access_token": {
      "type": "string"
     },
     "expires_in": {
      "type": "string"
     },
     "id_token": {
      "type": "string"
     },
     "refresh_token": {
      "type": "string"
     },
     "token_type": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     },
     "project_id": {
      "type": "string"
     }
    },
    "required": [
     "access_token",
     "expires_in",
     "id_token",
     "refresh_token",
     "token_type",
     "user_id",
     "project_id"
    ]
   },
   "CertificateMap": {
    "type": "object",
    "additionalProperties": {
     "type": "string"
    },
    "description": "kid → PEM x509 certificate."
   },
   "JWKSet": {
    "type": "object",
    "properties": {
     "keys": {
      "type": "array",
      "items": {
       "type": "object",
       "additionalProperties": {
        "type": "string"
       }
      }
     }
    },
    "required": [
     "keys"
    ]
   },
   "AdminCreateUserRequest": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string",
      "format": "email"
     },
     "password": {
      "type": "string",
      "minLength": 6
     },
     "displayName": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "disabled": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "FederatedUserIdentifier": {
    "type": "object",
    "properties": {
     "providerId": {
      "type": "string"
     },
     "rawId": {
      "type": "string"
     }
    }
   },
   "AdminLookupRequest": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "email": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "phoneNumber": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "federatedUserId": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/FederatedUserIdentifier"
      }
     },
     "idToken": {
      "type": "string"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "AdminLookupResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "users": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/UserInfo"
      }
     }
    }
   },
   "LinkProviderUserInfo": {
    "type": "object",
    "properties": {
     "providerId": {
      "type": "string"
     },
     "rawId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     }
    }
   },
   "AdminUpdateRequest": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "password": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "disableUser": {
      "type": "boolean"
     },
     "customAttributes": {
      "type": "string"
     },
     "validSince": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "createdAt": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "lastLoginAt": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "deleteAttribute": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "deleteProvider": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "linkProviderUserInfo": {
      "$ref": "#/components/schemas/LinkProviderUserInfo"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "AdminUpdateResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "displayName": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "providerUserInfo": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ProviderUserInfo"
      }
     }
    },
    "required": [
     "localId"
    ]
   },
   "AdminDeleteRequest": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "string"
     },
     "idToken": {
      "type": "string"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "BatchDeleteRequest": {
    "type": "object",
    "properties": {
     "localIds": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "force": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "BatchDeleteResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "errors": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "index": {
         "type": "integer"
        },
        "localId": {
         "type": "string"
        },
        "message": {
         "type": "string"
        }
       }
      }
     }
    }
   },
   "ImportUserInfo": {
    "type": "object",
    "properties": {
     "localId": {
      "type": "string"
     },
     "email": {
      "type": "string"
     },
     "emailVerified": {
      "type": "boolean"
     },
     "displayName": {
      "type": "string"
     },
     "phoneNumber": {
      "type": "string"
     },
     "photoUrl": {
      "type": "string"
     },
     "disabled": {
      "type": "boolean"
     },
     "customAttributes": {
      "type": "string"
     },
     "createdAt": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "lastLoginAt": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "passwordHash": {
      "type": "string"
     },
     "salt": {
      "type": "string"
     },
     "rawPassword": {
      "type": "string"
     },
     "providerUserInfo": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/LinkProviderUserInfo"
      }
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "ImportUsersRequest": {
    "type": "object",
    "properties": {
     "users": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ImportUserInfo"
      }
     },
     "hashAlgorithm": {
      "type": "string"
     },
     "signerKey": {
      "type": "string"
     },
     "saltSeparator": {
      "type": "string"
     },
     "rounds": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "memoryCost": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "cpuMemCost": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "parallelization": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "blockSize": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "dkLen": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "passwordHashOrder": {
      "type": "string"
     },
     "allowOverwrite": {
      "type": "boolean"
     },
     "sanityCheck": {
      "type": "boolean"
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "ImportUsersResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "error": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "index": {
         "type": "integer"
        },
        "message": {
         "type": "string"
        }
       }
      }
     }
    }
   },
   "QueryUsersRequest": {
    "type": "object",
    "properties": {
     "returnUserInfo": {
      "type": "boolean"
     },
     "limit": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "offset": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "sortBy": {
      "type": "string"
     },
     "order": {
      "type": "string"
     },
     "expression": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "email": {
         "type": "string"
        },
        "phoneNumber": {
         "type": "string"
        },
        "userId": {
         "type": "string"
        }
       }
      }
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "QueryUsersResponse": {
    "type": "object",
    "properties": {
     "recordsCount": {
      "type": "string"
     },
     "userInfo": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/UserInfo"
      }
     }
    },
    "required": [
     "recordsCount"
    ]
   },
   "BatchGetResponse": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string"
     },
     "users": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/UserInfo"
      }
     },
     "nextPageToken": {
      "type": "string"
     }
    }
   },
   "CreateSessionCookieRequest": {
    "type": "object",
    "properties": {
     "idToken": {
      "type": "string"
     },
     "validDuration": {
      "type": [
       "integer",
       "string"
      ],
      "description": "A number, or a string holding one (as Google's API accepts)."
     },
     "tenantId": {
      "type": "string"
     }
    }
   },
   "CreateSessionCookieResponse": {
    "type": "object",
    "properties": {
     "sessionCookie": {
      "type": "string"
     }
    },
    "required": [
     "sessionCookie"
    ]
   },
   "AuditLogResponse": {
    "type": "object",
    "properties": {
     "entries": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "id": {
         "type": "string"
        },
        "time": {
         "type": "string"
        },
        "actor": {
         "type": "string"
        },
        "action": {
         "type": "string"
        },
        "target": {
         "type": "string"
        },
        "detail": {
         "type": "string"
        }
       },
       "required": [
        "id",
        "time",
        "actor",
        "action",
        "target"
       ]
      }
     },
     "nextPageToken": {
      "type": "string"
     }
    },
    "required": [
     "entries"
    ]
   },
   "Empty": {
    "type": "object"
   },
   "AdminProjectConfig": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "signIn": {
      "type": "object",
      "properties": {
       "email": {
        "type": "object",
        "properties": {
         "enabled": {
          "type": "boolean"
         },
         "passwordRequired": {
          "type": "boolean"
         }
        }
       },
       "anonymous": {
        "type": "object",
        "properties": {
         "enabled": {
          "type": "boolean"
         }
        }
       },
       "phoneNumber": {
        "type": "object",
        "properties": {
         "enabled": {
          "type": "boolean"
         }
        }
       },
       "allowDuplicateEmails": {
        "type": "boolean"
       },
       "hashConfig": {
        "type": "object",
        "properties": {
         "algorithm": {
          "type": "string"
         },
         "rounds": {
          "type": "integer"
         },
         "memoryCost": {
          "type": "integer"
         },
         "saltSeparator": {
          "type": "string"
         },
         "signerKey": {
          "type": "string"
         }
        }
       }
      }
     },
     "authorizedDomains": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "emailPrivacyConfig": {
      "type": "object",
      "properties": {
       "enableImprovedEmailPrivacy": {
        "type": "boolean"
       }
      }
     },
     "client": {
      "type": "object",
      "properties": {
       "permissions": {
        "type": "object",
        "properties": {
         "disabledUserSignup": {
          "type": "boolean"
         },
         "disabledUserDeletion": {
          "type": "boolean"
         }
        }
       }
      }
     }
    }
   },
   "EmulatorConfig": {
    "type": "object",
    "properties": {
     "signIn": {
      "type": "object",
      "properties": {
       "allowDuplicateEmails": {
        "type": "boolean"
       }
      }
     },
     "emailPrivacyConfig": {
      "type": "object",
      "properties": {
       "enableImprovedEmailPrivacy": {
        "type": "boolean"
       }
      }
     }
    }
   },
   "DefaultSupportedIdpConfig": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "enabled": {
      "type": "boolean"
     },
     "clientId": {
      "type": "string"
     },
     "clientSecret": {
      "type": "string",
      "description": "Write-only: never answered."
     },
     "endpointBase": {
      "type": "string"
     },
     "graphBase": {
      "type": "string"
     },
     "allowedTenants": {
      "type": "array",
      "items": {
       "type": "string"
      },
      "description": "microsoft.com only: tenants whose accounts may sign in (tenant GUIDs, verified domains, consumers, organizations); absent: every tenant."
     },
     "tokenVault": {
      "type": "boolean",
      "description": "Keep the provider's refresh token in the token vault (default true)."
     },
     "nativeClientIds": {
      "type": "array",
      "items": {
       "type": "string"
      },
      "description": "Client IDs whose natively obtained ID tokens signInWithIdp accepts besides clientId's."
     }
    }
   },
   "DefaultSupportedIdpConfigList": {
    "type": "object",
    "properties": {
     "defaultSupportedIdpConfigs": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/DefaultSupportedIdpConfig"
      }
     },
     "nextPageToken": {
      "type": "string"
     }
    }
   },
   "OAuthIdpConfig": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "clientId": {
      "type": "string"
     },
     "clientSecret": {
      "type": "string",
      "description": "Write-only: never answered."
     },
     "issuer": {
      "type": "string"
     },
     "displayName": {
      "type": "string"
     },
     "enabled": {
      "type": "boolean"
     },
     "responseType": {
      "type": "object",
      "properties": {
       "code": {
        "type": "boolean"
       },
       "idToken": {
        "type": "boolean"
       },
       "token": {
        "type": "boolean"
       }
      }
     },
     "tokenVault": {
      "type": "boolean",
      "description": "Keep the provider's refresh token in the token vault (default true)."
     },
     "nativeClientIds": {
      "type": "array",
      "items": {
       "type": "string"
      },
      "description": "Client IDs whose natively obtained ID tokens signInWithIdp accepts besides clientId's."
     }
    }
   },
   "OAuthIdpConfigList": {
    "type": "object",
    "properties": {
     "oauthIdpConfigs": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OAuthIdpConfig"
      }
     },
     "nextPageToken": {
      "type": "string"
     }
    }
   },
   "DefaultSupportedIdpList": {
    "type": "object",
    "properties": {
     "defaultSupportedIdps": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "idpId": {
         "type": "string"
        },
        "description": {
         "type": "string"
        }
       },
       "required": [
        "idpId"
       ]
      }
     }
    },
    "required": [
     "defaultSupportedIdps"
    ]
   },
   "OAuthTokenResponse": {
    "type": "object",
    "properties": {
     "access_token": {
      "type": "string"
     },
     "token_type": {
      "type": "string"
     },
     "expires_in": {
      "type": "integer"
     }
    },
    "required": [
     "access_token",
     "token_type",
     "expires_in"
    ]
   },
   "OAuthError": {
    "type": "object",
    "properties": {
     "error": {
      "type": "string"
     },
     "error_description": {
      "type": "string"
     }
    },
    "required": [
     "error"
    ]
   },
   "Readiness": {
    "type": "object",
    "properties": {
     "status": {
      "type": "string"
     },
     "store": {
      "type": "string"
     },
     "keys": {
      "type": "string"
     }
    },
    "required": [
     "status"
    ]
   },
   "ProviderCheckReport": {
    "type": "object",
    "description": "A provider configuration check: each check with its status, what was seen and what to fix.",
    "properties": {
     "providerId": {
      "type": "string"
     },
     "ok": {
      "type": "boolean"
     },
     "redirectUri": {
      "type": "string",
      "description": "The redirect URI that must be registered at the provider."
     },
     "checks": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "name": {
         "type": "string"
        },
        "status": {
         "type": "string",
         "enum": [
          "ok",
          "info",
          "warning",
          "failed"
         ]
        },
        "detail": {
         "type": "string"
        },
        "fix": {
         "type": "string"
        },
        "providerError": {
         "$ref": "#/components/schemas/ProviderErrorInfo"
        }
       },
       "required": [
        "name",
        "status",
        "detail"
       ]
      }
     }
    },
    "required": [
     "providerId",
     "ok",
     "checks"
    ]
   },
   "ProviderErrorInfo": {
    "type": "object",
    "description": "A provider's refusal in its parts (OAuth error, Microsoft AADSTS codes, trace and correlation ids).",
    "additionalProperties": true
   },
   "ProviderAccessTokenRequest": {
    "type": "object",
    "properties": {
     "providerId": {
      "type": "string",
      "description": "microsoft.com, yahoo.com or oidc.<name>."
     },
     "idToken": {
      "type": "string",
      "description": "The user's Hearth ID token, when not sent as Authorization: Bearer."
     },
     "forceRefresh": {
      "type": "boolean",
      "description": "Renew at the provider even when the kept access token is still valid."
     }
    },
    "required": [
     "providerId"
    ]
   },
   "ProviderAccessTokenResponse": {
    "type": "object",
    "properties": {
     "providerId": {
      "type": "string"
     },
     "accessToken": {
      "type": "string"
     },
     "expiresIn": {
      "type": "integer"
     },
     "scope": {
      "type": "string"
     }
    },
    "required": [
     "providerId",
     "accessToken"
    ]
   }
  },
  "responses": {
   "Error": {
    "description": "The Google error envelope.",
    "headers": {
     "X-Request-Id": {
      "$ref": "#/components/headers/RequestId"
     }
    },
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/GoogleError"
      }
     }
    }
   },
   "AnyError": {
    "description": "An error: the Google error envelope (JSON) or an HTML error page.",
    "content": {
     "application/json": {
      "schema": {
       "type": "object"
      }
     },
     "text/html": {
      "schema": {
       "type": "string"
      }
     }
    }
   },
   "HTMLPage": {
    "description": "An HTML page.",
    "content": {
     "text/html": {
      "schema": {
       "type": "string"
      }
     }
    }
   },
   "Redirect": {
    "description": "A redirect.",
    "headers": {
     "Location": {
      "schema": {
       "type": "string"
      },
      "required": true
     }
    }
   }
  },
  "headers": {
   "RequestId": {
    "description": "The request's id (the caller's sane X-Request-Id, else a generated one); every log line of the request carries it.",
    "schema": {
     "type": "string"
    }
   }
  },
  "securitySchemes": {
   "apiKeyQuery": {
    "type": "apiKey",
    "in": "query",
    "name": "key",
    "description": "The project's API key (demo-* projects without configured keys accept any)."
   },
   "apiKeyHeader": {
    "type": "apiKey",
    "in": "header",
    "name": "X-Goog-Api-Key"
   },
   "adminBearer": {
    "type": "http",
    "scheme": "bearer",
    "description": "An access token from /oauth2.googleapis.com/token (service-account JWT grant), or the emulator credential `owner` (demo-* projects or --emulator-admin, loopback clients)."
   },
   "metricsBearer": {
    "type": "http",
    "scheme": "bearer",
    "description": "metrics.token, when metrics.access is token."
   }
  }
 }
}
"""##
}
