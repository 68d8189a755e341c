import { IsIn, IsOptional } from 'class-validator';

export class ListUsersQuery {
  @IsOptional() @IsIn(['true', 'false'], { message: 'active must be true or false' }) active?: 'true' | 'false';
}
