// The visible nodes of a tree-sitter tree, listed in one walk over tree-sitter's own subtrees.
//
// A TSTreeCursor yields the same list, but each step to a next sibling re-enters the hidden
// nodes that hold it: Python's statement and argument lists are balanced trees of hidden
// repetition nodes, and the cursor walk was a fifth of parsing a file. This walk keeps its own
// stack and reads tree-sitter's internal subtree layout, so it is tied to the runtime pinned in
// grammars/package-lock.json; tests/python_visible_nodes_test.cpp compares it with the cursor.
#ifndef TPULINT_PYTHON_VISIBLE_NODES_H
#define TPULINT_PYTHON_VISIBLE_NODES_H

#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  TPULINT_VISIBLE_NAMED = 1,
  TPULINT_VISIBLE_MISSING = 2,
  TPULINT_VISIBLE_HAS_ERROR = 4,
  TPULINT_VISIBLE_ERROR = 8,  // an ERROR node (ts_node_is_error)
};

typedef struct TpulintVisibleNode {
  uint32_t start_byte, end_byte;
  uint32_t parent;       // index of the parent in the list; UINT32_MAX for the root
  uint32_t subtree_end;  // one past the index of the node's last descendant
  TSSymbol symbol;       // as ts_node_symbol: the alias if any, made public
  TSFieldId field;       // as ts_tree_cursor_current_field_id: 0 for none
  uint8_t flags;         // TPULINT_VISIBLE_*
} TpulintVisibleNode;

// Lists the nodes a TSTreeCursor visits from the root of `tree`, in the same (pre-)order, with
// what that cursor reports of each. Writes at most `capacity` entries to `out` and returns how
// many there are: a result above `capacity` asks for a larger buffer. Returns SIZE_MAX when
// memory for the walk's stack cannot be had.
size_t tpulint_visible_nodes(const TSTree *tree, TpulintVisibleNode *out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
