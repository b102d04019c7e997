// See visible_nodes.h. The rules below are those of tree-sitter 0.25's tree_cursor.c and node.c:
// which children are visible, which hidden ones are entered, where a node starts, and which
// field a node fills; each is named where it is applied.
#include "python/visible_nodes.h"

#include <stdlib.h>

#include "language.h"
#include "subtree.h"
#include "tree.h"

// A subtree whose children are being listed.
typedef struct {
  Subtree subtree;
  uint32_t child_index;
  uint32_t structural_child_index;  // counts the children that are not extras
  uint32_t position;                // start byte of the child at child_index
  const TSSymbol *aliases;          // by structural child index; NULL for none
  uint32_t node;   // the visible node this frame is, or, for a hidden one, its nearest visible ancestor
  bool visible;
  TSFieldId field;  // a hidden frame: the field it passes to its children that have none of their own
} Frame;

static TSFieldId own_field(const TSLanguage *language, const Frame *parent, uint32_t structural_child_index) {
  const TSFieldMapEntry *map, *end;
  ts_language_field_map(language, ts_subtree_production_id(parent->subtree), &map, &end);
  for (; map < end; ++map)
    if (!map->inherited && map->child_index == structural_child_index) return map->field_id;
  return 0;
}

// ts_tree_cursor_current_field_id: the node's own field in its parent, else, up through hidden
// ancestors, theirs; an extra (a comment) fills none and stops the search.
static TSFieldId field_of(const TSLanguage *language, const Frame *parent, Subtree child,
                          uint32_t structural_child_index) {
  if (ts_subtree_extra(child)) return 0;
  TSFieldId field = own_field(language, parent, structural_child_index);
  if (!field && !parent->visible) field = parent->field;
  return field;
}

static Frame frame_for(const TSLanguage *language, Subtree subtree, uint32_t position, uint32_t node,
                       bool visible, TSFieldId field) {
  Frame f = {subtree, 0, 0, position, NULL, node, visible, field};
  if (ts_subtree_child_count(subtree) > 0) f.aliases = ts_language_alias_sequence(language, subtree.ptr->production_id);
  return f;
}

static void record(TpulintVisibleNode *out, size_t capacity, size_t index, const TSLanguage *language,
                   Subtree subtree, TSSymbol alias, uint32_t start, uint32_t parent, TSFieldId field) {
  if (index >= capacity) return;
  TSSymbol symbol = alias ? alias : ts_subtree_symbol(subtree);
  bool named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(subtree);
  TpulintVisibleNode *n = &out[index];
  n->start_byte = start;
  n->end_byte = start + ts_subtree_size(subtree).bytes;
  n->parent = parent;
  n->subtree_end = (uint32_t)index + 1;  // raised when its frame closes
  n->symbol = ts_language_public_symbol(language, symbol);
  n->field = field;
  n->flags = (uint8_t)((named ? TPULINT_VISIBLE_NAMED : 0) | (ts_subtree_missing(subtree) ? TPULINT_VISIBLE_MISSING : 0) |
                       (ts_subtree_error_cost(subtree) > 0 ? TPULINT_VISIBLE_HAS_ERROR : 0) |
                       (n->symbol == ts_builtin_sym_error ? TPULINT_VISIBLE_ERROR : 0));
}

size_t tpulint_visible_nodes(const TSTree *tree, TpulintVisibleNode *out, size_t capacity) {
  const TSLanguage *language = tree->language;
  size_t count = 0;
  // ts_tree_root_node: the root starts after its padding and is visible whatever its symbol.
  uint32_t root_start = ts_subtree_padding(tree->root).bytes;
  record(out, capacity, count++, language, tree->root, 0, root_start, UINT32_MAX, 0);
  if (ts_subtree_child_count(tree->root) == 0) return count;

  size_t stack_capacity = 64, depth = 0;
  Frame *stack = malloc(stack_capacity * sizeof(Frame));
  if (!stack) return SIZE_MAX;
  stack[depth++] = frame_for(language, tree->root, root_start, 0, true, 0);

  while (depth > 0) {
    Frame *top = &stack[depth - 1];
    if (top->child_index == ts_subtree_child_count(top->subtree)) {
      if (top->visible && top->node < capacity) out[top->node].subtree_end = (uint32_t)count;
      --depth;
      continue;
    }
    const Subtree *children = ts_subtree_children(top->subtree);
    Subtree child = children[top->child_index];
    uint32_t start = top->position;
    uint32_t structural_child_index = top->structural_child_index;
    bool extra = ts_subtree_extra(child);
    // CursorChildIterator: a child is visible, or made visible by its parent's alias for its
    // structural position; extras have no position and take no alias.
    TSSymbol alias = !extra && top->aliases ? top->aliases[structural_child_index] : 0;
    bool visible = ts_subtree_visible(child) || alias;
    if (!extra) ++top->structural_child_index;
    // The next child starts after this one and the next one's padding (a parent's padding is
    // its first child's, so the first child starts where its parent does).
    top->position = start + ts_subtree_size(child).bytes;
    if (++top->child_index < ts_subtree_child_count(top->subtree))
      top->position += ts_subtree_padding(children[top->child_index]).bytes;

    TSFieldId field = field_of(language, top, child, structural_child_index);
    bool enter = false;
    uint32_t node = top->node;
    if (visible) {
      node = (uint32_t)count;
      record(out, capacity, count++, language, child, alias, start, top->node, field);
      enter = ts_subtree_child_count(child) > 0;
    } else {
      // The cursor enters a hidden child only when it holds a visible node.
      enter = ts_subtree_visible_child_count(child) > 0;
    }
    if (!enter) continue;
    if (depth == stack_capacity) {
      Frame *grown = realloc(stack, 2 * stack_capacity * sizeof(Frame));
      if (!grown) {
        free(stack);
        return SIZE_MAX;
      }
      stack = grown;
      stack_capacity *= 2;
    }
    stack[depth++] = frame_for(language, child, start, node, visible, visible ? 0 : field);
  }
  free(stack);
  return count;
}
