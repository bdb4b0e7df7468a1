/**
 * A node of a bash syntax tree as plain data. Reading web-tree-sitter's nodes crosses into
 * WebAssembly and allocates on every property access; one cursor walk that copies the tree
 * costs less than the analysis reading the same nodes several times.
 */
export interface SyntaxNode {
  type: string;
  named: boolean;
  /** Offsets in the source string (UTF-16 code units). */
  start: number;
  end: number;
  /** The field this node fills in its parent (`name`, `value`, `destination`, …). */
  field: string | null;
  children: SyntaxNode[];
  parent: SyntaxNode | null;
}

/** The named children of a node. */
export function namedChildren(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((child) => child.named);
}

/** The child that fills `field`. */
export function childForField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  return node.children.find((child) => child.field === field);
}
