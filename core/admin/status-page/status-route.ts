import type { Context, Middleware } from "koa";
import { bearerMatches, statusCookieMatches, statusCookieValue } from "../../http/bearer-auth";
import { gatherStatus, type StatusSources } from "./status-data";
import { renderLogin, renderStatusPage } from "./render";

const COOKIE = "ocpi_status";
const FORM_LIMIT_BYTES = 4096;
/** no script anywhere; styles inline; the form posts to us only */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * `GET /admin/status`: the status page, for the admin token as a bearer
 * token or the session cookie the login form (`POST /admin/status/login`)
 * sets; the login form otherwise (HTTP 401 when a wrong bearer token was
 * sent). Absent without `server.admin_token`.
 */
export const statusPageRoute = (sources: StatusSources): Middleware => {
  const token = sources.config.server.admin_token;
  const secure = sources.config.server.public_url.startsWith("https:");
  return async (ctx, next) => {
    if (!token || !ctx.path.startsWith("/admin/status")) return next();
    const html = (status: number, body: string) => {
      ctx.status = status;
      ctx.type = "text/html; charset=utf-8";
      ctx.set("Cache-Control", "no-store");
      ctx.set("Content-Security-Policy", CSP);
      ctx.set("X-Content-Type-Options", "nosniff");
      ctx.set("Referrer-Policy", "no-referrer");
      ctx.body = body;
    };
    const cookie = (value: string, maxAge: number) =>
      ctx.set("Set-Cookie", `${COOKIE}=${value}; Path=/admin/status; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? "; Secure" : ""}`);
    if (ctx.path === "/admin/status/login" && ctx.method === "POST") {
      const form = new URLSearchParams(await readForm(ctx));
      // a page, not an API answer: 200 with the form again (a browser logs every 4xx page as a console error)
      if (!bearerMatches(`Bearer ${form.get("token") ?? ""}`, token)) return html(200, renderLogin(true));
      cookie(statusCookieValue(token), 8 * 3600);
      ctx.status = 303;
      ctx.redirect("/admin/status");
      return;
    }
    if (ctx.path === "/admin/status/logout" && ctx.method === "POST") {
      cookie("", 0);
      ctx.status = 303;
      ctx.redirect("/admin/status");
      return;
    }
    if (ctx.path !== "/admin/status" || (ctx.method !== "GET" && ctx.method !== "HEAD")) return next();
    const authorization = ctx.get("Authorization");
    if (!bearerMatches(authorization, token) && !statusCookieMatches(ctx.cookies.get(COOKIE), token))
      // a wrong bearer token (a script) is 401; a browser without the cookie gets the login form
      return html(authorization ? 401 : 200, renderLogin(false));
    html(200, renderStatusPage(await gatherStatus(sources)));
  };
};

const readForm = async (ctx: Context): Promise<string> => {
  let text = "";
  for await (const chunk of ctx.req) {
    text += chunk;
    if (text.length > FORM_LIMIT_BYTES) break;
  }
  return text;
};
