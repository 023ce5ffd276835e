/**
 * What the operator API does on a running mirror: imports of bundles and releases of module pins, beside the
 * stores the mirror serves from ({@link io.providermirror.server.operator.OperatorService}).
 */
package io.providermirror.server.operator;
