// Question pages: the response time measured in the browser, and answering by keyboard
// (a number picks an answer, a, b or c the familiarity, Enter submits). Waiting pages: trying
// again by themselves after the seconds their data-retry-after says. Served from the app itself,
// so the Content-Security-Policy allows scripts from 'self' only.
(function () {
  "use strict";
  var retry = document.querySelector("[data-retry-after]");
  if (retry) {
    window.setTimeout(function () {
      if (retry.tagName === "FORM") retry.submit(); else window.location.assign(retry.getAttribute("href"));
    }, 1000 * parseInt(retry.getAttribute("data-retry-after"), 10));
  }
  var start = performance.now();
  var form = document.getElementById("item");
  if (!form) return;
  form.addEventListener("submit", function () {
    form.elements["rt_ms"].value = String(Math.round(performance.now() - start));
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var answers = form.querySelectorAll('input[name="answer"]');
    var familiar = form.querySelectorAll('input[name="familiarity"]');
    var n = parseInt(event.key, 10);
    if (n >= 1 && n <= answers.length) { answers[n - 1].checked = true; answers[n - 1].focus(); event.preventDefault(); }
    var f = "abc".indexOf(event.key.toLowerCase());
    if (f >= 0 && f < familiar.length) { familiar[f].checked = true; familiar[f].focus(); event.preventDefault(); }
  });
})();
