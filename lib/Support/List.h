/* Intrusive circular doubly linked list with a sentinel head. */
#ifndef PTO_SUPPORT_LIST_H
#define PTO_SUPPORT_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct PtoListNode {
  struct PtoListNode *prev, *next;
} PtoListNode;

static inline void pto_list_init(PtoListNode *head) {
  head->prev = head->next = head;
}
static inline bool pto_list_empty(const PtoListNode *head) {
  return head->next == head;
}
static inline void pto_list_insert_before(PtoListNode *pos, PtoListNode *n) {
  n->prev = pos->prev;
  n->next = pos;
  pos->prev->next = n;
  pos->prev = n;
}
static inline void pto_list_insert_after(PtoListNode *pos, PtoListNode *n) {
  pto_list_insert_before(pos->next, n);
}
static inline void pto_list_push_back(PtoListNode *head, PtoListNode *n) {
  pto_list_insert_before(head, n);
}
static inline void pto_list_push_front(PtoListNode *head, PtoListNode *n) {
  pto_list_insert_after(head, n);
}
static inline void pto_list_remove(PtoListNode *n) {
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->prev = n->next = n;
}

#endif
