import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../core/openapi/document.ts';

// ajv-formats is CommonJS: its default import is module.exports, which carries the plugin as `default` too.
const addFormats = addFormatsModule.default;

/** A response that contradicts the OpenAPI document. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

type Call = (path: string, init?: RequestInit) => Promise<Response>;
type Json = Record<string, any>;

const DOC_ID = 'https://visitor-intelligence.test/openapi.json';

/** `~` and `/` escaped for a JSON pointer segment. */
const segment = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks responses against the OpenAPI document as Prism does: the operation is found by
 * method and path template, then the status must be documented for it, every required header
 * present and valid, the content type documented and the body valid against its schema. An
 * unknown path must answer the document's `NoSuchEndpoint`, an undocumented method its
 * `MethodNotAllowed`. Each contradiction throws a {@link ContractViolation} naming the
 * operation, the status and the failing JSON pointer.
 */
export class ResponseValidator {
  readonly #doc: Json;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #templates: { template: string; pattern: RegExp }[];

  constructor(doc: Json = openApiDocument()) {
    this.#doc = doc;
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...doc, $id: DOC_ID });
    this.#templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws a {@link ContractViolation} unless `response` (left unread) is what the document allows for `method path`. */
  async check(method: string, path: string, response: Response): Promise<void> {
    const pathname = new URL(path, 'http://api.test').pathname;
    // The API ignores one trailing slash, so `/v1/people/` answers as `/v1/people`.
    const routed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    const template = this.#templates.find((t) => t.pattern.test(routed))?.template;
    const operation = template === undefined ? undefined : this.#doc.paths[template][method.toLowerCase()];
    let pointer: string;
    let name: string;
    if (template === undefined) {
      [pointer, name] = ['/components/responses/NoSuchEndpoint', `${shorten(method)} ${shorten(pathname)} (no such path)`];
      if (response.status !== 404) this.#fail(name, response.status, `an unknown path must answer 404, not ${response.status}`);
    } else if (!operation) {
      [pointer, name] = ['/components/responses/MethodNotAllowed', `${shorten(method)} ${template} (undocumented method)`];
      if (response.status !== 405) this.#fail(name, response.status, `an undocumented method must answer 405, not ${response.status}`);
    } else {
      name = `${method} ${template} (${operation.operationId})`;
      pointer = `/paths/${segment(template)}/${method.toLowerCase()}/responses/${response.status}`;
      if (!operation.responses[String(response.status)]) this.#fail(name, response.status, 'the status is not documented for this operation');
    }
    const [documented, at] = this.#resolve(pointer);
    this.#checkHeaders(name, response, documented, at);
    await this.#checkBody(name, method, response, documented, at);
  }

  /** Throws a {@link ContractViolation} unless a webhook delivery of `kind` (its headers and raw body) is what the document's `webhooks` allow. */
  checkWebhook(kind: string, headers: Record<string, string>, body: string): void {
    const at = `/webhooks/${segment(kind)}/post`;
    const name = `webhook ${kind}`;
    const [operation] = this.#resolve(at);
    for (const ref of operation.parameters as Json[]) {
      const [parameter, parameterAt] = ref.$ref ? this.#resolve(ref.$ref.slice(1)) : [ref, at];
      const value = headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required) this.#fail(name, 0, `required header ${parameter.name} is missing`);
        continue;
      }
      this.#validate(name, 0, `${parameterAt}/schema`, value, `header ${parameter.name}`);
    }
    const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!operation.requestBody.content[type]) this.#fail(name, 0, `content type ${JSON.stringify(type)} is not documented`);
    this.#validate(name, 0, `${at}/requestBody/content/${segment(type)}/schema`, JSON.parse(body), 'body');
  }

  #checkHeaders(name: string, response: Response, documented: Json, at: string): void {
    for (const [header, ref] of Object.entries<Json>(documented.headers ?? {})) {
      const [spec, headerAt] = ref.$ref ? this.#resolve(ref.$ref.slice(1)) : [ref, `${at}/headers/${segment(header)}`];
      const value = response.headers.get(header);
      if (value === null) {
        if (spec.required) this.#fail(name, response.status, `required header ${header} is missing`);
        continue;
      }
      const schema = spec.schema as Json;
      const parsed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      this.#validate(name, response.status, `${headerAt}/schema`, parsed, `header ${header}`);
    }
  }

  async #checkBody(name: string, method: string, response: Response, documented: Json, at: string): Promise<void> {
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const content = (documented.content ?? {}) as Json;
    if (!(type in content)) this.#fail(name, response.status, `content type ${JSON.stringify(type)} is not documented (documented: ${Object.keys(content).join(', ') || 'none'})`);
    // A HEAD answer has no body over HTTP; its headers were checked above.
    if (method === 'HEAD') return;
    const text = await response.clone().text();
    let body: unknown = text;
    if (type === 'application/json') {
      try {
        body = JSON.parse(text);
      } catch {
        this.#fail(name, response.status, `the body is not JSON: ${text.slice(0, 80)}`);
      }
    }
    this.#validate(name, response.status, `${at}/content/${segment(type)}/schema`, body, 'body');
  }

  #validate(name: string, status: number, schemaAt: string, value: unknown, what: string): void {
    let validate = this.#compiled.get(schemaAt);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOC_ID}#${schemaAt}` });
      this.#compiled.set(schemaAt, validate);
    }
    if (!validate(value)) this.#fail(name, status, `${what} contradicts ${schemaAt}: ${describe(validate.errors ?? [], value)}`);
  }

  /** The document part at a JSON pointer, following one `$ref`, with the pointer it was found at. */
  #resolve(pointer: string): [Json, string] {
    const found = pointer
      .split('/')
      .slice(1)
      .reduce<Json>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.#doc);
    if (!found) throw new Error(`the OpenAPI document has nothing at ${pointer}`);
    return found.$ref ? this.#resolve(found.$ref.slice(1)) : [found, pointer];
  }

  /** Throws for `name`'s answer with `status` (0 for a webhook delivery, which the API sends rather than answers). */
  #fail(name: string, status: number, problem: string): never {
    const what = status === 0 ? name : `${name} answered ${status}`;
    throw new ContractViolation(`OpenAPI: ${what}, which contradicts the document: ${problem}`);
  }
}

/** The failing JSON pointers of a validation, each with what failed and the value found there. */
function describe(errors: ErrorObject[], value: unknown): string {
  // anyOf/oneOf also report the branches that did not apply: the deepest pointers say the most, so they come first.
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  const shown = [...errors].sort((a, b) => depth(b) - depth(a)).slice(0, 5);
  return shown
    .map((e) => `at ${JSON.stringify(e.instancePath || '/')} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} (found ${JSON.stringify(at(value, e.instancePath))?.slice(0, 80)})`)
    .join('; ');
}

/** Long request paths and methods (tests send some on purpose) cut short for messages. */
const shorten = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

function at(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], value);
}

let shared: ResponseValidator | undefined;

/** `call`, with every response checked against the OpenAPI document before the caller sees it. */
export function validating(call: Call, validator: ResponseValidator = (shared ??= new ResponseValidator())): Call {
  return async (path, init) => {
    const response = await call(path, init);
    await validator.check(init?.method ?? 'GET', path, response);
    return response;
  };
}
