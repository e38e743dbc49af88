import type { Faker } from '@faker-js/faker';
import type { CatalogSite } from './catalog.ts';
import { slugify } from './companies.ts';

/** What a page is for; it decides which interactions the page offers. */
export type PageKind = 'home' | 'pricing' | 'features' | 'blog' | 'docs' | 'resources' | 'contact' | 'demo' | 'about' | 'customers';

/** A page of one site, ready to stamp onto events without building strings per event. */
export interface SitePage {
  kind: PageKind;
  path: string;
  url: string;
  pageTitle: string;
}

/** A link or button, and the path it leads to. */
export interface ClickTarget {
  element: string;
  path: string;
}

export interface Video {
  videoId: string;
  durationSeconds: number;
}

/** One site's pages, indexed the ways a journey looks them up. */
export interface SiteContent {
  pages: SitePage[];
  byPath: Map<string, SitePage>;
  byKind: Map<PageKind, SitePage[]>;
}

/** Everything events draw on, built once per run so the per-event work is only picking. */
export interface ContentPools {
  sites: Map<string, SiteContent>;
  clicks: ClickTarget[];
  videos: Video[];
  files: string[];
  /** The form each kind of page carries, if any. */
  formByKind: Partial<Record<PageKind, string>>;
}

const FIXED_PAGES: readonly [PageKind, string, string][] = [
  ['home', '/', 'Home'],
  ['pricing', '/pricing', 'Pricing'],
  ['features', '/features', 'Features'],
  ['features', '/features/analytics', 'Analytics'],
  ['features', '/features/integrations', 'Integrations'],
  ['features', '/features/security', 'Security'],
  ['blog', '/blog', 'Blog'],
  ['docs', '/docs/getting-started', 'Getting Started'],
  ['docs', '/docs/api-reference', 'API Reference'],
  ['docs', '/docs/webhooks', 'Webhooks'],
  ['docs', '/docs/authentication', 'Authentication'],
  ['docs', '/docs/sdk/javascript', 'JavaScript SDK'],
  ['resources', '/resources', 'Resources'],
  ['contact', '/contact', 'Contact Us'],
  ['demo', '/demo', 'Request a Demo'],
  ['about', '/about', 'About Us'],
  ['customers', '/customers', 'Customer Stories'],
];

/** Builds the run's pages, click targets, videos and files; draws from `faker` in a fixed order. */
export function buildContent(faker: Faker, sites: readonly CatalogSite[], year: number): ContentPools {
  const posts = uniqueSlugs(faker, 14).map((title) => ['blog', `/blog/${slugify(title)}`, title] as [PageKind, string, string]);
  const papers = uniqueSlugs(faker, 4).map((title) => ['resources', `/resources/${slugify(title)}`, title] as [PageKind, string, string]);
  const pages = [...FIXED_PAGES, ...posts, ...papers];
  const siteContent = new Map<string, SiteContent>();
  for (const site of sites) {
    const list = pages.map(([kind, path, title]) => ({ kind, path, url: `https://${site.domain}${path}`, pageTitle: `${title} | ${site.brand}` }));
    const byKind = new Map<PageKind, SitePage[]>();
    for (const page of list) byKind.set(page.kind, [...(byKind.get(page.kind) ?? []), page]);
    siteContent.set(site.domain, { pages: list, byPath: new Map(list.map((p) => [p.path, p])), byKind });
  }
  const clicks: ClickTarget[] = [
    { element: 'a.nav-pricing', path: '/pricing' },
    { element: 'a.nav-features', path: '/features' },
    { element: 'a.nav-docs', path: '/docs/getting-started' },
    { element: 'a.nav-blog', path: '/blog' },
    { element: 'a.nav-resources', path: '/resources' },
    { element: 'button#request-demo', path: '/demo' },
    { element: 'a.cta-contact', path: '/contact' },
    { element: 'a.footer-about', path: '/about' },
    { element: 'a.customer-story', path: '/customers' },
    { element: 'a.feature-card', path: '/features/analytics' },
    { element: 'a.feature-card', path: '/features/integrations' },
    { element: 'a.feature-card', path: '/features/security' },
    { element: 'a.docs-sidebar-link', path: '/docs/api-reference' },
    { element: 'a.docs-sidebar-link', path: '/docs/webhooks' },
    { element: 'a.docs-sidebar-link', path: '/docs/authentication' },
    { element: 'a.docs-sidebar-link', path: '/docs/sdk/javascript' },
    ...posts.map(([, path]) => ({ element: 'a.blog-card', path })),
    ...papers.map(([, path]) => ({ element: 'a.resource-card', path })),
  ];
  const videos = Array.from({ length: 6 }, () => ({
    videoId: `vid_${faker.string.alphanumeric({ length: 10, casing: 'lower' })}`,
    durationSeconds: faker.number.int({ min: 45, max: 900 }),
  }));
  const files = [
    ...papers.map(([, path]) => `${path.slice('/resources/'.length)}-${year}.pdf`),
    `product-overview-${year}.pdf`,
    'security-whitepaper.pdf',
    'pricing-sheet.pdf',
    'api-quickstart.zip',
  ];
  const formByKind: Partial<Record<PageKind, string>> = {
    demo: 'demo-request',
    contact: 'contact-us',
    blog: 'newsletter-signup',
    resources: 'gated-content',
    pricing: 'pricing-quote',
  };
  return { sites: siteContent, clicks, videos, files, formByKind };
}

/** Article titles whose slugs differ, so every path names one page. */
function uniqueSlugs(faker: Faker, count: number): string[] {
  const seen = new Set<string>();
  const titles: string[] = [];
  while (titles.length < count) {
    const title = faker.company.catchPhrase();
    const slug = slugify(title);
    if (seen.has(slug)) continue;
    seen.add(slug);
    titles.push(title);
  }
  return titles;
}
