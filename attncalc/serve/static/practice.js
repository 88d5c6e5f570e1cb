// attncalc practice page: Check and Reveal without reloading the page. Optional: the form works the
// same without this script. It sends the form as the browser would and shows the page the server
// returns; it grades nothing itself.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  function wire() {
    var form = document.getElementById("practice");
    if (!form) return;
    form.addEventListener("submit", function (event) {
      var button = event.submitter;
      var action = button ? button.value : "check";
      if (action !== "check" && action !== "reveal") return; // downloads go the usual way
      event.preventDefault();
      var target = (button && button.getAttribute("formaction")) || form.getAttribute("action");
      var data = new URLSearchParams(new FormData(form));
      if (button && button.name) data.set(button.name, button.value); // the button pressed, as a plain submit sends it
      var focused = document.activeElement && document.activeElement.id;
      fetch(target.split("#")[0], {
        method: "POST",
        body: data,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        credentials: "same-origin",
      }).then(function (response) {
        return response.text().then(function (text) { return [response, text]; });
      }).then(function (pair) {
        var doc = new DOMParser().parseFromString(pair[1], "text/html");
        var main = doc.getElementById("main");
        if (!main) { form.submit(); return; }
        document.getElementById("main").replaceWith(main);
        wire();
        var anchor = target.split("#")[1];
        var goal = (anchor && document.getElementById(anchor)) || (focused && document.getElementById(focused));
        if (goal) {
          if (goal.tagName === "SECTION" && !goal.hasAttribute("tabindex")) goal.setAttribute("tabindex", "-1");
          goal.focus();
          goal.scrollIntoView({ block: "start" });
        }
      }).catch(function () { form.submit(); });
    });
  }
  wire();
});
