/**
 * Application wiring: builds the mirror over one cache directory ({@code MirrorWiring}), puts the listeners in
 * front of it ({@code MirrorApplication}), and reports what started ({@code StartupBanner}).
 */
package io.providermirror.server.app;
