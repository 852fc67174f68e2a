import { bearerProcedure, publicProcedure, requirePermission } from '../server/procedures.js';
import { emptyInput } from '../server/schemas/common.js';
import { router } from '../server/trpc.js';
import {
  fromBreakGlassRequestBody,
  toAuditEventView,
  toAuditVerification,
  toBreakGlassView,
  toStepUpResponse,
  toTokenResponse,
} from './auth/wire.js';
import { actorOf, metaOf, requiredBearerToken } from './request-facts.js';
import { stepUpActions } from '../server/services/auth.js';
import {
  auditList,
  auditListInput,
  auditVerification,
  breakGlassIdInput,
  breakGlassList,
  breakGlassRequest,
  breakGlassRequestInput,
  loginInput,
  revokeOutput,
  signupInput,
  stepUpInput,
  stepUpOutput,
  tokenResponse,
} from './auth/schemas.js';

const tags = ['Auth'];
const bgTags = ['Break-glass'];
const auditTags = ['Audit'];

/**
 * `/auth`: email/password sign-up and sign-in, refresh rotation, revocation, step-up, break-glass
 * and the tenant audit log. (SSO routes live in their own router.)
 */
export const authRouter = router({
  signup: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/signup',
        tags,
        summary:
          'Create an account and its default tenant, and sign in (403 when sign-up is disabled, 409 when the email is taken, 429 with Retry-After once the client address has used its hourly budget)',
        successDescription: 'Created',
      },
      auth: 'none',
    })
    .input(signupInput)
    .output(tokenResponse)
    .mutation(async ({ ctx, input }) => {
      const tokens = await ctx.services.auth.signup(input, metaOf(ctx));
      ctx.response.status = 201;
      return toTokenResponse(tokens);
    }),

  login: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/login',
        tags,
        summary: 'Sign in with email and password (one 401 for any wrong credential; 429 with Retry-After when throttled)',
      },
      auth: 'none',
    })
    .input(loginInput)
    .output(tokenResponse)
    .mutation(async ({ ctx, input }) => toTokenResponse(await ctx.services.auth.login(input, metaOf(ctx)))),

  refresh: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/refresh',
        tags,
        summary:
          'Exchange a refresh token (Authorization: Bearer <refresh_token>) for a new token pair; the old refresh token stops working',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(tokenResponse)
    .mutation(async ({ ctx }) =>
      toTokenResponse(await ctx.services.auth.refresh(requiredBearerToken(ctx.header('authorization')), metaOf(ctx))),
    ),

  revoke: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/revoke',
        tags,
        summary: 'End the session of an access or refresh token (Bearer); both of its tokens stop working at once',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(revokeOutput)
    .mutation(async ({ ctx }) => {
      await ctx.services.auth.revoke(requiredBearerToken(ctx.header('authorization')), metaOf(ctx));
      return { revoked: true as const };
    }),

  stepUp: bearerProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/step-up',
        tags,
        summary: `Re-authenticate for one sensitive action (${stepUpActions.join(', ')}); returns a short-lived token for X-Step-Up-Token`,
        protect: true,
      },
      auth: 'bearer',
    })
    .input(stepUpInput)
    .output(stepUpOutput)
    .mutation(async ({ ctx, input }) => toStepUpResponse(await ctx.services.auth.stepUp(ctx.principal, input, metaOf(ctx)))),

  breakGlassRequest: requirePermission('break_glass:request')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/break-glass/request',
        tags: bgTags,
        summary: 'Ask for time-boxed emergency elevation; another owner or admin must approve it',
        protect: true,
        successDescription: 'Created',
      },
      auth: 'bearer',
    })
    .input(breakGlassRequestInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) => {
      const record = await ctx.services.breakGlass.request(actorOf(ctx.principal), fromBreakGlassRequestBody(input), metaOf(ctx));
      ctx.response.status = 201;
      return toBreakGlassView(record);
    }),

  breakGlassList: bearerProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/break-glass',
        tags: bgTags,
        summary: 'Break-glass requests of the tenant (owners and admins see all, others their own)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(breakGlassList)
    .query(async ({ ctx }) => ({ requests: (await ctx.services.breakGlass.list(actorOf(ctx.principal))).map(toBreakGlassView) })),

  breakGlassApprove: requirePermission('break_glass:approve')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/break-glass/{id}/approve',
        tags: bgTags,
        summary: 'Approve a pending request (not your own: 403; already decided: 409)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(breakGlassIdInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) =>
      toBreakGlassView(await ctx.services.breakGlass.approve(actorOf(ctx.principal), input.id, metaOf(ctx))),
    ),

  breakGlassDeny: requirePermission('break_glass:approve')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/break-glass/{id}/deny',
        tags: bgTags,
        summary: 'Deny a pending request (not your own: 403; already decided: 409)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(breakGlassIdInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) =>
      toBreakGlassView(await ctx.services.breakGlass.deny(actorOf(ctx.principal), input.id, metaOf(ctx))),
    ),

  auditList: requirePermission('audit:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/audit',
        tags: auditTags,
        summary: "The tenant's audit events, newest first (hash-chained; see /auth/audit/verify)",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(auditListInput)
    .output(auditList)
    .query(async ({ ctx, input }) => {
      const { events, total } = await ctx.services.audit.list(ctx.principal.tenantId, input);
      return { events: events.map(toAuditEventView), total, limit: input.limit, offset: input.offset };
    }),

  auditVerify: requirePermission('audit:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/audit/verify',
        tags: auditTags,
        summary: "Recompute the tenant's audit hash chain; reports the first changed, missing or extra event",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(auditVerification)
    .query(async ({ ctx }) => toAuditVerification(await ctx.services.audit.verify(ctx.principal.tenantId))),
});
