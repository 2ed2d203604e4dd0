// Accessible names for controls that Dash components draw without one (a dropdown's search box, a slider's
// thumb, an upload's file input, a number box): each such control takes the text of the nearest wrapper's
// data-label. The layouts put data-label on a wrapper (layouts/controls.py `labelled`); nothing else reads it.
(function () {
  "use strict";
  var CONTROLS = "input, select, textarea, [role=slider], [role=combobox], [role=switch]";
  function label() {
    document.querySelectorAll("[data-label]").forEach(function (wrap) {
      var text = wrap.getAttribute("data-label");
      wrap.querySelectorAll(CONTROLS).forEach(function (el) {
        // options of an open dropdown and controls with a label of their own keep their names
        if (el.closest("[role=option], [role=listbox], label") || el.closest("[data-label]") !== wrap) {
          return;
        }
        if (el.getAttribute("aria-label") !== text) {
          el.setAttribute("aria-label", text);
        }
      });
    });
  }
  var pending = false;
  // Only a change that adds or moves nodes in or around a labelled wrapper can add a control to name: a redrawn
  // chart or grid (thousands of nodes a parameter change) leaves the whole page's search alone.
  function touchesLabels(record) {
    var target = record.target;
    if (target.nodeType !== 1 || !record.addedNodes.length) {
      return false;
    }
    if (target.closest("[data-label]")) {
      return true;
    }
    for (var i = 0; i < record.addedNodes.length; i++) {
      var node = record.addedNodes[i];
      if (node.nodeType === 1 && (node.hasAttribute("data-label") || node.querySelector("[data-label]"))) {
        return true;
      }
    }
    return false;
  }
  new MutationObserver(function (records) {
    if (pending || !records.some(touchesLabels)) {
      return;
    }
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      label();
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
