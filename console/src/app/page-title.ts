import { Injectable, inject } from '@angular/core';
import { Title } from '@angular/platform-browser';
import { type RouterStateSnapshot, TitleStrategy } from '@angular/router';

/** "Overview · LunaNexa": the view first, so browser tabs and history stay tellable apart. */
@Injectable({ providedIn: 'root' })
export class ConsoleTitleStrategy extends TitleStrategy {
  private readonly title = inject(Title);

  override updateTitle(snapshot: RouterStateSnapshot): void {
    const view = this.buildTitle(snapshot);
    this.title.setTitle(view ? `${view} · LunaNexa` : 'LunaNexa');
  }
}
