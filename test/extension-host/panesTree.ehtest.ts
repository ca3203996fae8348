// In-extension-host test of the Panes view's tree (src/extension/views/panesTree.ts) on VS
// Code's own EventEmitter and TreeItem: while leases count down, the rows it shows are
// re-drawn as the same elements (an inline action clicked meanwhile still reaches its row), and
// the whole tree is re-read when a lease comes or goes. The rows are built by the extension's
// own paneRows from API views; only the clock is set by hand.
import assert from 'node:assert/strict';
import { paneRows, type PaneRow } from '../../src/extension/model/paneRows.ts';
import { PanesTree, type PanesNode } from '../../src/extension/views/panesTree.ts';
import { MIN, NO_NOTICES, READ_AT, later, leaseView, paneView } from '../unit/extension/fixtures.ts';

describe('Panes view tree (in the extension host)', () => {
  let elapsedMs = 0;
  let leaseIds = ['wl_1'];
  const rows = (): PaneRow[] =>
    paneRows(
      [{ pane: paneView(leaseIds.map((id) => leaseView({ lease_id: id, job_ref: `job-${id}` }))), readAt: READ_AT }],
      later(elapsedMs),
      NO_NOTICES,
      () => ({ name: 'bash', position: 1 }),
    );
  const tree = new PanesTree({ rows, hooksMissing: () => false });
  const fired: Array<PanesNode | PanesNode[] | undefined> = [];
  tree.onDidChangeTreeData((change) => fired.push(change ?? undefined));
  const description = (node: PanesNode) => String(tree.getTreeItem(node).description);

  after(() => tree.dispose());

  it('time passing re-draws the shown pane and its lease as the same elements, with the text of now', () => {
    const [pane] = tree.getChildren();
    assert.ok(pane && pane.kind === 'pane');
    const [lease] = tree.getChildren(pane);
    assert.ok(lease && lease.kind === 'lease');
    assert.match(description(pane), /12m left/);
    elapsedMs = 3 * MIN;
    tree.redrawCountdowns();
    assert.deepEqual(fired, [[pane]], 'the pane row alone is re-drawn (its lease with it), not the whole tree');
    assert.match(description(pane), /9m left/);
    assert.strictEqual(tree.getChildren(pane)[0], lease, 'its lease row is the element the view already has');
    assert.match(description(lease), /9m left/);
    assert.strictEqual(tree.getChildren()[0], pane, 'a whole-tree re-read hands out the same element too');
  });

  it('a lease that came re-reads the whole tree; a pane whose row id changes is a new element', () => {
    const [pane] = tree.getChildren();
    fired.length = 0;
    leaseIds = ['wl_1', 'wl_2'];
    tree.redrawCountdowns();
    assert.deepEqual(fired, [undefined], 'the whole tree');
    const [again] = tree.getChildren();
    assert.strictEqual(again, pane, 'still a pane with leases: the same element');
    assert.equal(tree.getChildren(again!).length, 2);
    leaseIds = [];
    tree.redrawCountdowns();
    const [bare] = tree.getChildren();
    assert.notStrictEqual(bare, pane, 'no lease left: its row takes another id, so another element');
    assert.equal(tree.getTreeItem(bare!).id, 'pane:vscode-abc-1');
  });
});
