import type { Tree } from "web-tree-sitter";

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

/** Copy a tree-sitter tree into `SyntaxNode`s. */
export function copyTree(tree: Tree): SyntaxNode {
  const cursor = tree.walk();
  const make = (parent: SyntaxNode | null): SyntaxNode => {
    const node: SyntaxNode = {
      type: cursor.nodeType,
      named: cursor.nodeIsNamed,
      start: cursor.startIndex,
      end: cursor.endIndex,
      field: cursor.currentFieldName,
      children: [],
      parent,
    };
    parent?.children.push(node);
    return node;
  };
  try {
    const root = make(null);
    let current = root;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        current = make(current);
        continue;
      }
      for (;;) {
        if (cursor.gotoNextSibling()) {
          current = make(current.parent);
          break;
        }
        if (!cursor.gotoParent()) return root;
        current = current.parent!;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** The named children of a node. */
export function namedChildren(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((child) => child.named);
}

/** The child that fills `field`. */
export function childForField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  return node.children.find((child) => child.field === field);
}
